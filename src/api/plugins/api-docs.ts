import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { dirname, join } from 'node:path'
import { NotFoundError } from '../../errors/app-error.ts'
import { refineApiDescription, type RefineOptions } from '../openapi-refinements.ts'
import { FAVICON_PATH } from '../public-paths.ts'

/** Swagger UI's own files, from the pinned swagger-ui-dist package. */
const SWAGGER_DIST = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir))
const ASSETS = new Map([
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui.css', 'text/css; charset=utf-8'],
])

/** swagger-ui-dist's icon: a PNG, which browsers take under any name. */
const FAVICON = Bun.file(join(SWAGGER_DIST, 'favicon-32x32.png'))

/**
 * Absolute, as the assets are: the page is also served at /swagger/, where
 * the plugin's relative "swagger/json" would resolve to
 * /swagger/swagger/json. (Its options type leaves `url` out, though the
 * plugin passes it on: hence a spread rather than a literal.)
 */
const SPEC_PATH = '/swagger/json'
const ABSOLUTE_SPEC_URL = { url: SPEC_PATH }

/**
 * The OpenAPI 1.0.0 description, generated from the arktype schemas that
 * validate requests, and Swagger UI at /swagger. @elysiajs/swagger renders
 * arktype schemas as arktype internals, so this uses its successor
 * @elysiajs/openapi with arktype's own JSON Schema output (morphs are
 * documented by their input, which is what a client sends). Swagger UI is
 * served from the installed package: the docs work offline and load no
 * third-party script next to a bearer key.
 */
export function apiDocs(options: RefineOptions = {}) {
  return new Elysia({ name: 'api-docs' })
    .get(
      '/swagger/assets/:file',
      ({ params }) => {
        const type = ASSETS.get(params.file)
        if (!type) throw new NotFoundError(`no Swagger UI asset ${params.file}`)
        return new Response(Bun.file(join(SWAGGER_DIST, params.file)), {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
        })
      },
      { detail: { hide: true } },
    )
    // Asked for by the browser on the docs' page, without the key: a 401
    // there would be the page's one console error.
    .get(
      FAVICON_PATH,
      () => new Response(FAVICON, { headers: { 'content-type': 'image/png', 'cache-control': 'public, max-age=86400' } }),
      { detail: { hide: true } },
    )
    .onAfterHandle(({ path, response }) => (path === SPEC_PATH ? refineApiDescription(response, options) : undefined))
    .use(
      openapi({
        path: '/swagger',
        specPath: SPEC_PATH,
        provider: 'swagger-ui',
        exclude: { paths: [/^\/swagger/] },
        documentation: {
          info: {
            title: 'Shadow-testing service API',
            version: '1.0.0',
            description:
              'Gates (live/shadow pairs), captured requests with their diffs, configuration and statistics. ' +
              'Every operation but /health/* and /metrics needs `Authorization: Bearer <key>`.',
          },
          components: {
            securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
          },
          security: [{ bearerAuth: [] }],
          // Relative: the API is wherever this description was fetched
          // from, so "Try it out" works behind any host name.
          servers: [{ url: '/', description: 'This API' }],
        },
        mapJsonSchema: {
          arktype: (schema: { toJsonSchema: (options: unknown) => unknown }) =>
            schema.toJsonSchema({
              fallback: {
                morph: (ctx: { base: unknown }) => ctx.base,
                default: (ctx: { base: unknown }) => ctx.base,
                predicate: (ctx: { base: unknown }) => ctx.base,
                proto: (ctx: { base: unknown }) => ctx.base,
                domain: (ctx: { base: unknown }) => ctx.base,
              },
            }),
        },
        swagger: {
          ...ABSOLUTE_SPEC_URL,
          cdn: '/swagger/assets/swagger-ui-bundle.js',
          theme: '/swagger/assets/swagger-ui.css',
          autoDarkMode: false,
          persistAuthorization: false,
        },
      }),
    )
}
