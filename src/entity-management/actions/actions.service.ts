import type { Role } from '../../platform/auth/capabilities.ts';
import { can } from '../entity-management.capabilities.ts';
import type { EntityContext } from '../context.ts';
import type { ReloadOutcome } from '../definitions.ts';
import { EntityErrors } from '../errors.ts';
import type { Action } from './action-definition.ts';
import type { ParamDeclaration } from './action.schemas.ts';
import { toActionPayload } from './action-result.mapper.ts';
import { runCommand } from './command-runner.ts';
import { toRunParams } from './params.ts';

/** An action as `GET /actions` shows it. */
export interface ActionView {
  readonly code: string;
  readonly description: string;
  readonly params: ParamDeclaration[];
  readonly command: Action['command'];
  readonly requires: Action['capability'];
}

function toActionView(action: Action): ActionView {
  return {
    code: action.code,
    description: action.description,
    params: [...action.params],
    command: action.command,
    requires: action.capability,
  };
}

function findAction(actions: ReadonlyMap<string, Action>, code: string): Action {
  const action = actions.get(code);
  if (action === undefined) throw EntityErrors.actionNotFound(code);
  return action;
}

/** The stored actions: listed and run on the definitions in use, reloaded from the back-end. */
export class ActionsService {
  constructor(private readonly context: EntityContext) {}

  list(): ActionView[] {
    return [...this.context.definitions.current.actions.values()].map(toActionView);
  }

  get(code: string): ActionView {
    return toActionView(findAction(this.context.definitions.current.actions, code));
  }

  /**
   * Runs an action on the definitions current when it starts (a reload meanwhile
   * does not touch it). The caller needs the rights of the command's steps.
   */
  async run(code: string, role: Role | null, body: unknown): Promise<Record<string, unknown>> {
    const snapshot = this.context.definitions.current;
    const action = findAction(snapshot.actions, code);
    if (!can(role, action.capability)) {
      throw EntityErrors.forbidden(`Running ${code} changes records: it needs an editor or an administrator`);
    }
    const params = toRunParams(action.params, body);
    return toActionPayload(snapshot.catalog, await runCommand(this.context.backend, action, params));
  }

  reload(): Promise<ReloadOutcome> {
    return this.context.definitions.reload();
  }
}
