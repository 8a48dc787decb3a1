/**
 * The noise check on the svc_gate module: the proxy's cases
 * (test/support/noise-cases.ts), in an Elysia and a Bun.serve host,
 * configured by object and by block text.
 */
import { describe } from 'bun:test'
import { NOISE_CASES } from '../../support/noise-cases.ts'
import { shadowCaseSuite } from '../../support/shadow-cases.ts'
import { CONFIG_FORMS, HOST_KINDS, moduleTarget } from './module-harness.ts'

for (const kind of HOST_KINDS) {
  for (const form of CONFIG_FORMS) {
    describe(`the noise check of svc_gate on /api in a ${kind} host, configured by ${form}`, () => {
      shadowCaseSuite(moduleTarget(kind, form), NOISE_CASES)
    })
  }
}
