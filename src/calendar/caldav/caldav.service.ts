import type { RequestContext } from '../common/context.ts';
import type { DavPaths } from './caldav.paths.ts';
import { CaldavReader, type CaldavReaderDeps } from './caldav.reader.ts';
import { CaldavWriter, type CaldavWriterDeps } from './caldav.writer.ts';

/** The calendar over CalDAV (docs/caldav.md), built once: it hands each request a reader (and a writer) of its own. */
export class CaldavService {
  constructor(
    private readonly deps: CaldavReaderDeps & CaldavWriterDeps,
    private readonly paths: DavPaths,
  ) {}

  forRequest(ctx: RequestContext): CaldavReader {
    return new CaldavReader(this.deps, ctx);
  }

  writerFor(reader: CaldavReader): CaldavWriter {
    return new CaldavWriter(this.deps, reader, this.paths);
  }
}
