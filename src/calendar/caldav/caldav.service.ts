import type { RequestContext } from '../common/context.ts';
import { CaldavReader, type CaldavReaderDeps } from './caldav.reader.ts';

/** The calendar over CalDAV (docs/caldav.md), built once: it hands each request a reader of its own. */
export class CaldavService {
  constructor(private readonly deps: CaldavReaderDeps) {}

  forRequest(ctx: RequestContext): CaldavReader {
    return new CaldavReader(this.deps, ctx);
  }
}
