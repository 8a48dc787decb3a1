/**
 * The svc_gate module against the table of behaviours it shares with the
 * standalone proxy (test/support/shadow-cases.ts): in an Elysia host and a
 * Bun.serve host, configured by an object and by block text. The same
 * table, the same expectations: one core.
 */
import { describe } from 'bun:test'
import { shadowCaseSuite } from '../../support/shadow-cases.ts'
import { CONFIG_FORMS, HOST_KINDS, moduleTarget } from './module-harness.ts'

for (const kind of HOST_KINDS) {
  for (const form of CONFIG_FORMS) {
    describe(`svc_gate on /api in a ${kind} host, configured by ${form}`, () => {
      shadowCaseSuite(moduleTarget(kind, form))
    })
  }
}
