/**
 * `/file`: files the merchant keeps with the sandbox (multipart/form-data uploads, read by the
 * body parser: src/http/pipeline/multipart.ts), and `/files/{id}`, where each file's public_url
 * serves its bytes without a key, under headers that never let it run script in the sandbox's
 * origin.
 */
import { Elysia, t } from "elysia";
import { pageRequest } from "../../domain/pagination";
import { pageOf } from "../page";
import { merchantAuth } from "../auth";
import type { AppDeps } from "../deps";
import { AUTH_ERRORS, ErrorBody, PageQuery } from "../../domain/schemas/records";
import {
  EvidenceUploadBody,
  FilePage,
  FileRecord,
  FileUpdateBody,
  FileUploadBody,
  MAX_FILE_TAG,
} from "../../domain/schemas/files";
import type { FileRow } from "../../services/files";

const IdParams = t.Object({ id: t.String() });
const NOT_FOUND = { ...AUTH_ERRORS, 404: ErrorBody };
const UPLOAD_ERRORS = { ...AUTH_ERRORS, 413: ErrorBody };
const KINDS =
  "The type is read from the bytes, never from the name: PDF, PNG, JPEG, GIF, WebP, BMP, TIFF and UTF-8 text are kept; HTML, SVG, XML and any other type are refused (422 on `file`); over 5 MiB is a 413.";

/** GET /file's envelope: the page, and the real one's first/last page URLs, path and links. */
function filePage<T>(listing: { rows: T[]; total: number }, query: { page?: string; per_page?: string }, url: string) {
  const request = pageRequest(query);
  const page = pageOf(listing, request, url);
  const at = (n: number) => {
    const link = new URL(url);
    link.searchParams.set("page", String(n));
    return link.toString();
  };
  const path = new URL(url);
  path.search = "";
  return {
    ...page,
    first_page_url: at(1),
    last_page_url: at(page.last_page),
    path: path.toString(),
    links: [
      { url: page.prev_page_url, label: "&laquo; Previous", active: false },
      ...Array.from({ length: page.last_page }, (_, i) => ({
        url: at(i + 1),
        label: String(i + 1),
        active: i + 1 === page.current_page,
      })).slice(0, 50),
      { url: page.next_page_url, label: "Next &raquo;", active: false },
    ],
  };
}

export function fileRoutes(deps: AppDeps) {
  const { files, disputes } = deps.services;
  return new Elysia({ prefix: "/file", tags: ["Files"] })
    .use(merchantAuth(deps))
    .get(
      "",
      async ({ merchant, query, request }) =>
        filePage(await files.list(merchant.id, { tag: query.tag }, pageRequest(query)), query, request.url),
      {
        query: t.Object({
          ...PageQuery,
          tag: t.Optional(t.String({ maxLength: MAX_FILE_TAG, description: "only the files with this tag" })),
        }),
        response: { 200: FilePage, ...AUTH_ERRORS },
        detail: { summary: "List files, newest first (deleted evidence left out)" },
      },
    )
    .post("", ({ merchant, body }) => files.create(merchant.id, body), {
      parse: "multipart/form-data",
      body: FileUploadBody,
      response: { 200: FileRecord, ...UPLOAD_ERRORS },
      detail: { summary: "Upload a file (multipart/form-data: name, tag, file)", description: KINDS },
    })
    .post(
      "/dispute",
      async ({ merchant, body, set }) => {
        const record = await disputes.addEvidence(merchant.id, body);
        set.status = 201;
        return record;
      },
      {
        parse: "multipart/form-data",
        body: EvidenceUploadBody,
        response: { 201: FileRecord, ...UPLOAD_ERRORS, 404: ErrorBody },
        detail: {
          summary: "Upload evidence for a dispute (multipart/form-data: dispute_id, name, file)",
          description: `${KINDS} Only while the dispute is PENDING and before its respond_by (422 invalid_state otherwise); tagged dispute. Evidence that says winning_evidence (in its bytes or name) wins the dispute, losing_evidence loses it (docs/settlement.md, "Disputes").`,
        },
      },
    )
    .delete("/dispute/:id", ({ merchant, params }) => disputes.deleteEvidence(merchant.id, params.id), {
      params: IdParams,
      response: { 200: FileRecord, ...NOT_FOUND },
      detail: {
        summary: "Delete a dispute's evidence file",
        description:
          "Only while the dispute is PENDING and before its respond_by (422 invalid_state otherwise). Answers the record with deleted_at; its bytes are no longer served.",
      },
    })
    .get("/:id", ({ merchant, params }) => files.get(merchant.id, params.id), {
      params: IdParams,
      response: { 200: FileRecord, ...NOT_FOUND },
      detail: { summary: "Get a file's record (its bytes are at public_url)" },
    })
    .put("/:id", ({ merchant, params, body }) => files.update(merchant.id, params.id, body), {
      parse: "multipart/form-data",
      params: IdParams,
      body: FileUpdateBody,
      response: { 200: FileRecord, ...NOT_FOUND, 413: ErrorBody },
      detail: {
        summary: "Rename, retag or replace a file (multipart/form-data: name, tag, file; each optional)",
        description: `${KINDS} A dispute's evidence takes a new name only (422 invalid_state otherwise).`,
      },
    });
}

/**
 * The headers a stored file is served with. Images and PDF are shown inline, anything else is a
 * download; nosniff keeps the browser to the type given, and the CSP sandbox gives the document
 * an opaque origin with no script, so even a file that slipped past the checks runs nothing here.
 */
export function fileHeaders(row: Pick<FileRow, "mime" | "name" | "extension">): Record<string, string> {
  const inline = row.mime.startsWith("image/") || row.mime === "application/pdf";
  const filename = `${row.name.replace(/\.[A-Za-z0-9]{1,5}$/, "")}.${row.extension}`;
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return {
    "content-type": row.mime === "text/plain" ? "text/plain; charset=utf-8" : row.mime,
    "content-disposition": `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
    "cross-origin-resource-policy": "same-site",
    "referrer-policy": "no-referrer",
    "cache-control": "private, no-cache",
  };
}

/** `/files/{id}`: a file's bytes (its public_url), no key needed. */
export function fileContentRoutes(deps: AppDeps) {
  const { files } = deps.services;
  return new Elysia({ name: "file-content" }).get(
    "/files/:id",
    async ({ params }) => {
      const found = await files.content(params.id);
      if (!found) {
        return new Response("File not found.", {
          status: 404,
          headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
        });
      }
      return new Response(found.bytes as Uint8Array<ArrayBuffer>, { headers: fileHeaders(found.row) });
    },
    { params: IdParams, detail: { hide: true } },
  );
}
