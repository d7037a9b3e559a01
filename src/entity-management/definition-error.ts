/** A stored definition (entity type, field or action) that cannot be used; `subject` names it. */
export class DefinitionError extends Error {
  constructor(
    readonly subject: string,
    message: string,
  ) {
    super(message);
    this.name = 'DefinitionError';
  }
}
