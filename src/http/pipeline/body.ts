/**
 * Reading a request body: at most {@link MAX_BODY_BYTES}, and a larger one refused (413 in the
 * error envelope) without being buffered, whether its length is declared or it comes chunked.
 *
 * @example
 * const text = await readBody(request); // "" without a body; throws ApiError("payload_too_large")
 */
import { ApiError } from "../../domain/errors";

/** The largest request body the sandbox reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

export const TOO_LARGE_MESSAGE = "The request body may not be larger than 1 MiB.";

const tooLarge = () => new ApiError("payload_too_large", TOO_LARGE_MESSAGE);

/** Reads a body of at most `limit` bytes as UTF-8 text, refusing larger ones without buffering them. */
export async function readBody(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limit) throw tooLarge();
  if (!request.body) return "";
  // With a declared length (the usual case) the HTTP server already bounds the body: read it at once,
  // much cheaper than a stream reader (measured: ~8% of a POST /charge). Chunked bodies are streamed.
  if (declared > 0) {
    const text = await request.text();
    if (Buffer.byteLength(text) > limit) throw tooLarge();
    return text;
  }
  return (await readStream(request.body, limit, tooLarge)).toString("utf8");
}

/** Reads a body of at most `limit` bytes as bytes (an upload), refusing a larger one with `tooLargeError`. */
export async function readBytes(
  request: Request,
  limit: number,
  tooLargeError: () => Error = tooLarge,
): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limit) throw tooLargeError();
  if (!request.body) return new Uint8Array();
  return readStream(request.body, limit, tooLargeError);
}

/** Reads a stream to its end, cancelling it and throwing `tooLargeError()` once it passes `limit` bytes. */
async function readStream(
  body: ReadableStream<Uint8Array>,
  limit: number,
  tooLargeError: () => Error,
): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
