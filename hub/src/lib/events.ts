import type { LocatedOp } from './diff-highlight.ts'
import type { InsightWindow } from './insights-query.ts'
import type { GateListQuery, RequestListQuery, SortOrder } from './query-string.ts'
import type { Gate } from './types.ts'

/**
 * The events hub components raise. Each bubbles and is composed, so it
 * crosses shadow roots up to the page that owns the state, and is declared
 * in HTMLElementEventMap so listeners are typed.
 */

const INIT: EventInit = { bubbles: true, composed: true }

/** A pager asks for another page. */
export class PageChangeEvent extends Event {
  static readonly type = 'page-change'
  constructor(
    readonly offset: number,
    readonly limit: number,
  ) {
    super(PageChangeEvent.type, INIT)
  }
}

/** A sortable column header was activated. */
export class SortChangeEvent extends Event {
  static readonly type = 'sort-change'
  constructor(
    readonly sort: string,
    readonly order: SortOrder,
  ) {
    super(SortChangeEvent.type, INIT)
  }
}

/** The user asked to delete a gate (confirmation is the page's job). */
export class GateDeleteEvent extends Event {
  static readonly type = 'gate-delete'
  constructor(readonly gate: Gate) {
    super(GateDeleteEvent.type, INIT)
  }
}

/** A gate was created or updated by the API. */
export class GateSavedEvent extends Event {
  static readonly type = 'gate-saved'
  constructor(
    readonly gate: Gate,
    readonly created: boolean,
    /** The update changed the diff_config: stored captures were compared otherwise. */
    readonly diffConfigChanged = false,
  ) {
    super(GateSavedEvent.type, INIT)
  }
}

/** New gate list search; `replace` while typing so history is not flooded. */
export class GateSearchEvent extends Event {
  static readonly type = 'gate-search'
  constructor(
    readonly query: GateListQuery,
    readonly replace: boolean,
  ) {
    super(GateSearchEvent.type, INIT)
  }
}

/** New request filters. */
export class FiltersChangeEvent extends Event {
  static readonly type = 'filters-change'
  constructor(
    readonly query: RequestListQuery,
    readonly replace: boolean,
  ) {
    super(FiltersChangeEvent.type, INIT)
  }
}

/** Another time window was picked for the Differences view. */
export class WindowChangeEvent extends Event {
  static readonly type = 'window-change'
  constructor(readonly window: InsightWindow) {
    super(WindowChangeEvent.type, INIT)
  }
}

/** A diff operation was picked: show it in both bodies. */
export class DiffSelectEvent extends Event {
  static readonly type = 'diff-select'
  constructor(readonly located: LocatedOp) {
    super(DiffSelectEvent.type, INIT)
  }
}

/** "Ignore" on a field or a suggestion: open the diff settings with these ignored_fields entries added. */
export class IgnoreFieldsEvent extends Event {
  static readonly type = 'ignore-fields'
  constructor(readonly fields: readonly string[]) {
    super(IgnoreFieldsEvent.type, INIT)
  }
}

/** A re-diff job finished: the gate's stored diffs, and so its stats, changed. */
export class RediffDoneEvent extends Event {
  static readonly type = 'rediff-done'
  constructor(readonly jobId: string) {
    super(RediffDoneEvent.type, INIT)
  }
}

/** A key was typed into the key prompt. */
export class KeySubmitEvent extends Event {
  static readonly type = 'key-submit'
  constructor(readonly key: string) {
    super(KeySubmitEvent.type, INIT)
  }
}

/** An error state's "Try again". */
export class RetryEvent extends Event {
  static readonly type = 'retry'
  constructor() {
    super(RetryEvent.type, INIT)
  }
}

/** A 401 state's "Enter another key". */
export class ChangeKeyEvent extends Event {
  static readonly type = 'change-key'
  constructor() {
    super(ChangeKeyEvent.type, INIT)
  }
}

declare global {
  interface HTMLElementEventMap {
    'page-change': PageChangeEvent
    'sort-change': SortChangeEvent
    'gate-delete': GateDeleteEvent
    'gate-saved': GateSavedEvent
    'gate-search': GateSearchEvent
    'filters-change': FiltersChangeEvent
    'window-change': WindowChangeEvent
    'diff-select': DiffSelectEvent
    'ignore-fields': IgnoreFieldsEvent
    'rediff-done': RediffDoneEvent
    'key-submit': KeySubmitEvent
    retry: RetryEvent
    'change-key': ChangeKeyEvent
  }
}
