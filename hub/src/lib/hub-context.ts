import type { ApiClient } from './api-client.ts'
import type { HubConfig } from './config.ts'

/** What every page needs: the API client and where its settings came from. */
export interface HubContext {
  readonly api: ApiClient
  readonly config: HubConfig
}
