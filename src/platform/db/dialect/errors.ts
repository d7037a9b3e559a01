/** A unique constraint was violated; `constraint` names it when the driver says. */
export class UniqueViolationError extends Error {
  constructor(
    readonly constraint: string | undefined,
    options?: { cause: unknown },
  ) {
    super(`unique constraint violated${constraint === undefined ? '' : `: ${constraint}`}`, options);
    this.name = 'UniqueViolationError';
  }
}

/** A foreign key constraint was violated. */
export class ForeignKeyViolationError extends Error {
  constructor(options?: { cause: unknown }) {
    super('foreign key constraint violated', options);
    this.name = 'ForeignKeyViolationError';
  }
}
