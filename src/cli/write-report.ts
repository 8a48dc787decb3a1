import { writeFile } from 'node:fs/promises'

/** Writes a report file; a failure names the file and why, in one line. */
export async function writeReport(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text)
  } catch (error) {
    throw new Error(`cannot write the JUnit report to ${file}: ${(error as Error).message}`)
  }
}
