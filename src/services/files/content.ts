/**
 * What an uploaded file is, read from its bytes and never from its name or the type the client
 * sent: file-type reads the magic numbers (PNG, JPEG, PDF, …), image-size the dimensions of an
 * image. The sandbox serves files from its own origin, so only types that cannot run script there
 * are taken: images, PDF and plain text. HTML, SVG and XML (which a browser runs script in) and
 * everything else are refused with a 422 naming `file`.
 *
 * @example
 * const kind = await sniff(bytes); // { mime: "image/png", extension: "png", width: 2, height: 3, inline: true }
 */
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import { ApiError, ValidationFailed } from "../../domain/errors";

/** The largest file the sandbox keeps (a dispute's evidence included). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

export const FILE_TOO_LARGE_MESSAGE = "A file may not be larger than 5 MiB.";
export const FILE_EMPTY_MESSAGE = "The file is empty.";
export const FILE_MARKUP_MESSAGE =
  "HTML, SVG and XML files are refused: served from the sandbox they could run script. Upload a PDF, an image or plain text.";
export const FILE_TYPE_MESSAGE =
  "This type of file is refused. Upload a PDF, an image (PNG, JPEG, GIF, WebP, BMP, TIFF) or plain text (UTF-8).";

/** The binary types taken, by the MIME type file-type reads from the bytes; each is shown inline. */
const BINARY_TYPES = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "image/tiff",
  "application/pdf",
]);

/** Markup a browser may run script in, at the start of a text file or anywhere in it. */
const MARKUP = /^\s*</;
const SCRIPTABLE = /<\s*(html|svg|script|body|iframe|object|embed|xml|!doctype|\?xml)\b/i;

export interface FileKind {
  mime: string;
  extension: string;
  width: number | null;
  height: number | null;
  /** Shown in the browser (images, PDF); everything else is served as a download. */
  inline: boolean;
}

export const tooLarge = () => new ApiError("payload_too_large", FILE_TOO_LARGE_MESSAGE);

/** The kind of the bytes, or a 422 (`file`) for an empty, refused or scriptable file; a 413 past MAX_FILE_BYTES. */
export async function sniff(bytes: Uint8Array): Promise<FileKind> {
  if (bytes.byteLength > MAX_FILE_BYTES) throw tooLarge();
  if (bytes.byteLength === 0) throw new ValidationFailed({ file: [FILE_EMPTY_MESSAGE] });
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) {
    if (/xml|svg|html/.test(detected.mime)) throw new ValidationFailed({ file: [FILE_MARKUP_MESSAGE] });
    if (!BINARY_TYPES.has(detected.mime)) throw new ValidationFailed({ file: [FILE_TYPE_MESSAGE] });
    let width: number | null = null;
    let height: number | null = null;
    if (detected.mime.startsWith("image/")) {
      try {
        const size = imageSize(bytes);
        width = size.width ?? null;
        height = size.height ?? null;
      } catch {
        // A truncated image still has its type; it just has no size to report.
      }
    }
    return { mime: detected.mime, extension: detected.ext, width, height, inline: true };
  }
  const text = utf8(bytes);
  if (text === undefined || text.includes("\0")) throw new ValidationFailed({ file: [FILE_TYPE_MESSAGE] });
  if (MARKUP.test(text) || SCRIPTABLE.test(text)) throw new ValidationFailed({ file: [FILE_MARKUP_MESSAGE] });
  return { mime: "text/plain", extension: "txt", width: null, height: null, inline: false };
}

/** The bytes as UTF-8 text, or undefined when they are not valid UTF-8 (an unknown binary format). */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The real service's human size: "7.38 kB", "139.3 kB" (decimal units, at most 3 significant digits past the point). */
export function humanSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${Number(value.toPrecision(value >= 100 ? 4 : 3))} ${units[unit]}`;
}
