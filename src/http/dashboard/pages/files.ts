/**
 * The dashboard's files page: what the merchant uploaded (POST /file) and the evidence of its
 * disputes, each linking to the bytes at its public_url.
 */
import type { FileRecord } from "../../../domain/schemas/files";
import type { Page } from "../../page";
import { html, type Renderable } from "../../../lib/html";
import { badge, emptyState, idText, pager, when } from "../layout";

/** One file as a table row: name (linking to its bytes), tag, type, size, dimensions, when. */
export function fileRow(file: FileRecord, disputeLink = true): Renderable {
  const { width, height } = file.meta.size;
  return html`<tr data-file="${file.id}">
    <td><a href="${file.public_url}" rel="noopener" target="_blank">${file.name}</a> ${idText(file.id, "file id")}</td>
    <td>${file.tag ?? ""}</td>
    <td><code>${file.meta.mime}</code></td>
    <td class="num">${file.meta.filesize}</td>
    <td>${width !== undefined && height !== undefined ? `${width}×${height}` : ""}</td>
    <td>
      ${
        file.dispute_id && disputeLink
          ? html`<a href="/dashboard/disputes/${file.dispute_id}">dispute evidence</a>`
          : file.deleted_at
            ? badge("deleted", "bad")
            : ""
      }
    </td>
    <td>${when(file.created_at)}</td>
  </tr>`;
}

export function fileTable(files: readonly FileRecord[], disputeLink = true): Renderable {
  return html`<table class="files">
    <thead>
      <tr>
        <th>Name</th>
        <th>Tag</th>
        <th>Type</th>
        <th class="num">Size</th>
        <th>Image size</th>
        <th></th>
        <th>Uploaded</th>
      </tr>
    </thead>
    <tbody>
      ${files.map((file) => fileRow(file, disputeLink))}
    </tbody>
  </table>`;
}

export function filesPage(page: Page<FileRecord>): Renderable {
  return html`<h1>Files</h1>
    <p class="muted">
      Files uploaded with <code>POST /file</code> and the evidence of disputes (<code>POST /file/dispute</code>). The
      type is read from the bytes; each name opens the file at its public URL (images and PDF inline, anything else as a
      download).
    </p>
    <p><a href="/dashboard/disputes">Disputes</a>: cardholders' disputes and the evidence answering them.</p>
    ${page.total === 0 ? emptyState("No files yet.") : fileTable(page.data)} ${pager("/dashboard/files", page, {})}`;
}
