import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type Level, type LevelWithSilent, type Logger } from 'pino';
import type { LogLevel } from '../config/config.ts';
import { redactUrl } from './http/redact.ts';

interface RequestLike {
  method?: string;
  url?: string;
  ip?: string;
  hostname?: string;
}

/** The process logger: JSON lines, with secrets redacted from URLs and headers. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', '*.password', 'password'],
        censor: '[redacted]',
      },
      serializers: {
        req: (request: RequestLike) => ({
          method: request.method,
          url: request.url === undefined ? undefined : redactUrl(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    destination,
  );
}

type LogMethod = (...args: unknown[]) => void;

/**
 * A request's child logger, made only when something is logged at an enabled
 * level: Fastify makes one per request, and pino serializes its bindings
 * (the request id) at once, while at `warn` most requests log nothing.
 */
class LazyChildLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private logger(): Logger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private log(level: Level, args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.logger()[level] as LogMethod)(...args);
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: Level): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  get level(): LevelWithSilent | string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilent | string) {
    this.logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a per-request logger that costs nothing until it logs (see LazyChildLogger). */
export function lazyChildLogger(parent: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  // A route-level log level differs from the parent's: the child must exist to carry it.
  if (options.level !== undefined) return parent.child(bindings, options);
  return new LazyChildLogger(parent, bindings, options) as unknown as Logger;
}

/**
 * Fastify's per-request log lines (`incoming request`, `request completed`)
 * are `info`: when the request's logger has `info` off they are not even
 * assembled (objects, a timing and calls on every request). A request that
 * ends in an error is still logged, at `error`.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (infoEnabled(request.log)) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || infoEnabled(reply.log)) super.requestCompleted(error, request, reply);
  }
}

// Request loggers are pino's or LazyChildLogger, which both have it; Fastify's type omits it.
const infoEnabled = (logger: FastifyBaseLogger) => (logger as unknown as Pick<Logger, 'isLevelEnabled'>).isLevelEnabled('info');
