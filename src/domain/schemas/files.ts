/**
 * Files (`/file`) and a dispute's evidence (`/file/dispute`): the real record (id, merchant_id,
 * user_id, name, public_url, tag, meta, timestamps) plus `path` and the sandbox's `dispute_id`.
 */
import { t } from "elysia";
import { Integer, Nullable, NullableTimestamp, PageOf, Timestamp } from "./records";

export const MAX_FILE_NAME = 255;
export const MAX_FILE_TAG = 64;

const FileName = t.String({ minLength: 1, maxLength: MAX_FILE_NAME, description: "a name for the file (1-255)" });
const FileTag = t.String({ maxLength: MAX_FILE_TAG, description: "a tag to find it by (GET /file?tag=; at most 64)" });
const Upload = t.File({
  description:
    "the file (at most 5 MiB): a PDF, an image (PNG, JPEG, GIF, WebP, BMP, TIFF) or UTF-8 text; its type is read from its bytes",
});

export const FileUploadBody = t.Object(
  { name: FileName, tag: t.Optional(FileTag), file: Upload },
  { title: "FileUploadRequest" },
);

export const FileUpdateBody = t.Object(
  { name: t.Optional(FileName), tag: t.Optional(FileTag), file: t.Optional(Upload) },
  { title: "FileUpdateRequest" },
);

export const EvidenceUploadBody = t.Object(
  {
    dispute_id: t.String({ minLength: 1, description: "the dispute this is evidence for" }),
    name: FileName,
    file: Upload,
  },
  { title: "DisputeEvidenceRequest" },
);

export const FileMeta = t.Object(
  {
    filesize_bytes: Integer(),
    filesize: t.String({ description: "the size in decimal units, e.g. 7.38 kB" }),
    extension: t.String({ description: "the extension of the type read from the bytes (png, jpg, pdf, txt, …)" }),
    size: t.Object(
      { width: t.Optional(Integer()), height: t.Optional(Integer()) },
      { description: "an image's width and height in pixels; {} for other files" },
    ),
    mime: t.String({ description: "the MIME type read from the bytes" }),
  },
  { title: "FileMeta" },
);

export const FileRecord = t.Object(
  {
    id: t.String(),
    merchant_id: t.String(),
    user_id: t.String({ description: "the API user of the merchant's key (GET /self user.id)" }),
    name: t.String(),
    tag: Nullable(t.String()),
    path: t.String({ description: "where the file is kept: <tag or file>/<id>.<extension>" }),
    public_url: t.String({ description: "where the sandbox serves the bytes (no key needed)" }),
    dispute_id: Nullable(t.String({ description: "the dispute it is evidence for (sandbox field)" })),
    meta: FileMeta,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "File" },
);
export type FileRecord = typeof FileRecord.static;

const PageLink = t.Object({ url: Nullable(t.String()), label: t.String(), active: t.Boolean() });

/** GET /file: the list envelope with the real one's Laravel members (first/last page URL, path, links). */
export const FilePage = t.Object(
  {
    ...PageOf(FileRecord).properties,
    first_page_url: t.String(),
    last_page_url: t.String(),
    path: t.String(),
    links: t.Array(PageLink),
  },
  { title: "FilePage" },
);
