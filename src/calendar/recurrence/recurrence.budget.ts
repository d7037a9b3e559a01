import { RecurrenceError } from './recurrence.grammar.ts';

/** What one expansion may spend by default: steps (days examined, wall times mapped, dates read) and milliseconds. */
export const EXPANSION_STEPS = 100_000;
export const EXPANSION_MS = 100;
/**
 * The clock is read only past this many steps: fewer take well under a millisecond of work, so a deadline
 * they miss measures the machine's load (a process kept off the CPU), not the rule, and must not refuse it.
 */
const UNTIMED_STEPS = 10_000;

/**
 * This thread's CPU time in milliseconds. An expansion runs without awaiting, so what it spends is this thread's
 * time; a wall clock would also count the time the process waits for a core, and refuse a rule on a busy machine.
 */
function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** Steps and CPU time an expansion may take; exceeding either is a RecurrenceError. */
export class ExpansionBudget {
  static standard(): ExpansionBudget {
    return new ExpansionBudget(EXPANSION_STEPS, EXPANSION_MS);
  }

  private steps = 0;
  private readonly deadline: number;

  constructor(
    private readonly maxSteps: number,
    private readonly maxMs: number,
    private readonly clock: () => number = threadCpuMs,
  ) {
    this.deadline = clock() + maxMs;
  }

  /** Counts `n` steps (days examined, occurrences mapped); past UNTIMED_STEPS, checks the clock every 256 steps. */
  step(n = 1): void {
    const before = this.steps;
    this.steps += n;
    if (this.steps > this.maxSteps) {
      throw new RecurrenceError(
        `The recurrence needs more than ${this.maxSteps} steps to expand: give it a coarser FREQ or an earlier end.`,
      );
    }
    if (this.steps > UNTIMED_STEPS && before >> 8 !== this.steps >> 8 && this.clock() > this.deadline) {
      throw new RecurrenceError(`The recurrence takes more than ${this.maxMs} ms to expand: give it a coarser FREQ or an earlier end.`);
    }
  }
}
