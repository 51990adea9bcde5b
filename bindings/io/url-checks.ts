/**
 * Two checks of fromUrl's (io/source.ts) that each read of a URL passes through:
 *
 * - **One version of the file.** A lazy open reads a file over HTTP in many range requests, spread over time; a
 *   file replaced on the server between two of them would give a model mixed from two versions. The first
 *   response's validators (ETag, Last-Modified) are kept; every later request carries `If-Range` with one of them
 *   (a server then answers 200 with the whole new file instead of a range of it), and every later response's
 *   validators must be the same. A difference is a SourceError naming the URL.
 * - **Progress, not just activity.** A body that sends a byte now and then never stays idle; so within each window
 *   of the idle timeout a body must bring at least `minBytesPerSecond` × the window's seconds (or all the bytes
 *   still wanted, when fewer), else the read fails with a SourceError and the request is aborted.
 */

/** How the checks' failures are made: fromUrl passes its SourceError (io/source.ts, which imports this module). */
export type ErrorMaker = (message: string) => Error;

/** The default least rate of a body: 1 KiB/s, averaged over each window of the idle timeout. */
export const DEFAULT_URL_MIN_BYTES_PER_SECOND = 1024;

interface Validators {
  etag: string | undefined;
  lastModified: string | undefined;
}

function validatorsOf(response: Response): Validators {
  return {
    etag: response.headers.get("etag")?.trim() || undefined,
    lastModified: response.headers.get("last-modified")?.trim() || undefined,
  };
}

/** The version of a URL's file that the first response showed, checked against every later response. */
export class VersionCheck {
  private known: Validators | undefined;
  /** A 206 was seen: the server honours Range, so a 200 to a request with If-Range means the file changed. */
  private sawPartial = false;
  /** The If-Range value sent with the request being answered. */
  private sentIfRange: string | undefined;

  constructor(
    private readonly href: string,
    private readonly sendIfRange: boolean,
    private readonly error: ErrorMaker,
  ) {}

  /**
   * The `If-Range` header of the next request: a strong ETag (a weak one may not be used there), else the
   * Last-Modified date; undefined before anything is known, or when If-Range is not to be sent.
   */
  ifRange(): string | undefined {
    const known = this.known;
    this.sentIfRange =
      !this.sendIfRange || !known
        ? undefined
        : known.etag && !/^W\//.test(known.etag)
          ? known.etag
          : known.lastModified;
    return this.sentIfRange;
  }

  /** Checks a 200 or 206 response against the version known so far (learning it from the first), or throws. */
  check(response: Response, what: string): void {
    const now = validatorsOf(response);
    const known = this.known;
    if (!known) {
      this.known = now;
    } else {
      const changed = (kind: string, before: string | undefined, after: string | undefined) => {
        if (before !== undefined && after !== undefined && before !== after) {
          throw this.error(
            `${this.href} changed while being read: its ${kind} was ${JSON.stringify(before)}, now ${JSON.stringify(after)} (${what}); open it again`,
          );
        }
      };
      changed("ETag", known.etag, now.etag);
      changed("Last-Modified", known.lastModified, now.lastModified);
      if (
        response.status === 200 &&
        this.sawPartial &&
        this.sentIfRange !== undefined &&
        now.etag === undefined &&
        now.lastModified === undefined
      ) {
        // a server that honours Range answered a conditional range with the whole file and no validator to tell
        throw this.error(
          `${this.href} answered a range request with If-Range: ${this.sentIfRange} with the whole file (HTTP 200) and no ETag or Last-Modified: it may have changed while being read (${what}); open it again`,
        );
      }
      known.etag ??= now.etag;
      known.lastModified ??= now.lastModified;
    }
    if (response.status === 206) this.sawPartial = true;
  }
}

/**
 * A `reader.read()` that is awaited across windows of `windowMs`: `next()` gives the next piece, or throws a
 * SourceError when a window ends having brought fewer bytes than it must (see the module's comment).
 */
export class ProgressWatch {
  private windowBytes = 0;
  private windowStart = Date.now();
  private wantedAtWindowStart: number;

  constructor(
    private readonly windowMs: number,
    private readonly minBytesPerSecond: number,
    private readonly abort: AbortController,
    private readonly what: string,
    wanted: number,
    private readonly error: ErrorMaker,
  ) {
    this.wantedAtWindowStart = wanted;
  }

  /** The next piece of `reader`; `stillWanted` is how many bytes the caller still wants (for a window's quota). */
  async next<T extends { done?: boolean; value?: Uint8Array | undefined }>(
    pending: Promise<T>,
    stillWanted: () => number,
  ): Promise<T> {
    if (this.windowMs === 0 || this.windowMs === Infinity) return pending;
    for (;;) {
      const left = this.windowStart + this.windowMs - Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const windowEnd = new Promise<"window-end">(
        (resolve) => (timer = setTimeout(() => resolve("window-end"), Math.max(0, left))),
      );
      const step = await Promise.race([pending, windowEnd]).finally(() => clearTimeout(timer));
      if (step !== "window-end") {
        this.windowBytes += step.value?.length ?? 0;
        return step;
      }
      const seconds = this.windowMs / 1000;
      if (this.windowBytes === 0) this.fail(`no more bytes for ${this.what} within ${seconds} s (the idle timeout)`);
      const quota = Math.min(Math.ceil(this.minBytesPerSecond * seconds), this.wantedAtWindowStart);
      if (this.windowBytes < quota) {
        this.fail(
          `${this.what} came at ${Math.round(this.windowBytes / seconds)} bytes/s over the last ${seconds} s, below the least rate of ${this.minBytesPerSecond} bytes/s (a trickle is no progress; the idle timeout and minBytesPerSecond set it)`,
        );
      }
      this.windowStart = Date.now();
      this.windowBytes = 0;
      this.wantedAtWindowStart = stillWanted();
    }
  }

  private fail(message: string): never {
    const error = this.error(message);
    this.abort.abort(); // (after: the error is made before the abort's own error can surface)
    throw error;
  }
}
