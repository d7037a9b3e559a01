import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Where the event editor's script is served, below the site root. */
export const EDITOR_SCRIPT_PATH = '/admin/assets/editor.js';

/** The editor's policy on a page that runs the script: its own script only, which asks only the site. */
export const scriptCsp = (csp: string) => `${csp}; script-src 'self'; connect-src 'self'`;

/**
 * The event editor's script (assets/editor.ts): type-checked with the project, bundled and minified by esbuild the
 * first time a page needs it (~0.1 s once per process), so neither `npm ci` nor a build step has to make it, and
 * the sources and dist/ (which copies the assets folder) serve the same file.
 */
export class EditorScript {
  private built: { readonly code: Buffer; readonly etag: string } | undefined;

  constructor(private readonly folder: string) {}

  private bundle() {
    if (this.built === undefined) {
      // Loaded here, not with the server: a process that never shows the form never loads esbuild.
      const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
      const [output] = buildSync({
        entryPoints: [path.join(this.folder, 'editor.ts')],
        bundle: true,
        minify: true,
        format: 'esm',
        target: 'es2022',
        write: false,
        logLevel: 'silent',
      }).outputFiles;
      if (output === undefined) throw new Error('the editor script built to nothing');
      const code = Buffer.from(output.contents);
      this.built = { code, etag: `"${createHash('sha256').update(code).digest('base64url')}"` };
    }
    return this.built;
  }

  /** The script's address, versioned by its content: a new build is a new address, so each may be cached for good. */
  url(basePath: string): string {
    return `${basePath}${EDITOR_SCRIPT_PATH}?v=${this.bundle().etag.slice(1, 13)}`;
  }

  send(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const { code, etag } = this.bundle();
    void reply.headers({ etag, 'cache-control': 'public, max-age=31536000, immutable' });
    // A revalidation compares weakly (RFC 9110): any tag of the list, with or without W/.
    const known = (request.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (known.includes(etag) || known.includes('*')) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(code);
  }
}
