import type { Logger } from 'pino';

/** Work done every `everyMs`, outside any request. */
export interface PeriodicTask {
  /** Names the task in the log when a round fails. */
  readonly name: string;
  /** How long after a round the next one starts, unless the round found more due at once or the task is woken. */
  readonly everyMs: number;
  /** One round; `true` when it left more work due now, so the next starts at once. A round that throws is logged and ends as `false`. */
  readonly run: () => Promise<boolean | void>;
}

/** What a task's owner holds: a way to ask for a round now. */
export interface PeriodicHandle {
  /** Runs a round now, or right after the one under way; never two at once. */
  wake(): void;
}

/**
 * The rounds of one task: at most one under way, and at most one asked for
 * to follow it, however many times it is woken meanwhile.
 */
class Rounds implements PeriodicHandle {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<boolean> | undefined;
  private queued: Promise<boolean> | undefined;

  constructor(
    private readonly task: PeriodicTask,
    private readonly owner: BackgroundWork,
    private readonly log: Logger,
  ) {}

  /** The round under way or asked for, if any. */
  get pending(): Promise<boolean> | undefined {
    return this.queued ?? this.current;
  }

  wake(): void {
    void this.next();
  }

  /** Resolves with what the round after this call reported. */
  next(): Promise<boolean> {
    this.queued ??= (this.current ?? Promise.resolve()).then(() => {
      this.queued = undefined;
      return this.run();
    });
    return this.queued;
  }

  cancel(): void {
    clearTimeout(this.timer);
  }

  private run(): Promise<boolean> {
    clearTimeout(this.timer);
    if (!this.owner.running) return Promise.resolve(false);
    // Called from a promise, so that a `run` that throws instead of rejecting fails as a round too.
    const round = Promise.resolve()
      .then(() => this.task.run())
      .then(
        (more) => more === true,
        (error: unknown) => {
          this.log.warn({ err: error, task: this.task.name }, 'background round failed; trying again at its next time');
          return false;
        },
      );
    this.current = round;
    void round.then((more) => {
      this.current = undefined;
      if (more) this.wake();
      else this.schedule();
    });
    return round;
  }

  private schedule(): void {
    if (!this.owner.running) return;
    this.timer = setTimeout(() => this.wake(), this.task.everyMs);
    // A timer alone does not keep the process alive: closing the server stops the rounds.
    this.timer.unref();
  }
}

/**
 * The one runner of a server process's work outside requests: periodic
 * tasks (`every`), and work started outside a round that shutdown must wait
 * for (`track`: a webhook attempt under way, a group commit being written).
 * Built with the server; `start` when it is ready runs every task's first
 * round, `stop` when it closes. Tests call `drain` to know that everything
 * the process would do now is done.
 */
export class BackgroundWork {
  private readonly tasks: Rounds[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** How many pieces of work `track` was given: a drain is over only when a round started none. */
  private trackedCount = 0;
  private state: 'built' | 'running' | 'stopped' = 'built';

  constructor(private readonly log: Logger) {}

  get running(): boolean {
    return this.state === 'running';
  }

  every(task: PeriodicTask): PeriodicHandle {
    const rounds = new Rounds(task, this, this.log);
    this.tasks.push(rounds);
    if (this.running) rounds.wake();
    return rounds;
  }

  /** Counts `work` as under way until it settles; it should settle on its own (bounded by a timeout, or a commit). */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    this.trackedCount += 1;
    void settled.then(() => this.inFlight.delete(settled));
  }

  /** Each task's first round, now. */
  start(): void {
    if (this.state !== 'built') return;
    this.state = 'running';
    for (const rounds of this.tasks) rounds.wake();
  }

  /**
   * Resolves when every task has looked for work after this call, none
   * found more due now, and nothing tracked is under way. A task cannot know
   * that work arrived (another process's change, a retry come due) without a
   * round, so each runs at least once; work due later (a retry's backoff,
   * the next hour) is not waited for.
   */
  async drain(): Promise<void> {
    for (;;) {
      await this.settled();
      const tracked = this.trackedCount;
      const more = await Promise.all(this.tasks.map((rounds) => rounds.next()));
      if (!more.includes(true) && this.trackedCount === tracked && this.inFlight.size === 0) return;
    }
  }

  /** No round starts from now on; resolves once the rounds and tracked work under way are over. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    for (const rounds of this.tasks) rounds.cancel();
    await this.settled();
  }

  private async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.tasks.map((rounds) => rounds.pending), ...this.inFlight].filter((work) => work !== undefined);
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }
}
