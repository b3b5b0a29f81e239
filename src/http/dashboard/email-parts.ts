/**
 * An e-mail taken apart for the dashboard's views, as Mailpit shows one: the text part, every
 * header line, the raw MIME source, the attachments and the links of the HTML part. mailparser
 * (nodemailer's own parser) reads the message the sandbox composed; it loads with the first
 * e-mail opened, like nodemailer with the first e-mail sent.
 */
import type { EmailParts } from "./pages/outbox";

let parser: Promise<typeof import("mailparser")> | undefined;

/** The hrefs of `<a>` elements, in document order (Bun's HTMLRewriter: an HTML parser, not a regex). */
async function hrefsOf(markup: string): Promise<string[]> {
  const hrefs: string[] = [];
  await new HTMLRewriter()
    .on("a[href]", {
      element(element) {
        hrefs.push(element.getAttribute("href")!);
      },
    })
    .transform(new Response(markup))
    .text();
  return hrefs;
}

/**
 * Where the sandbox answers a link, as a path of its own, when the link points at the sandbox
 * (its public URL, or a path); null for anywhere else.
 */
export function sandboxPath(href: string, publicUrl: string): string | null {
  if (href.startsWith("/") && !href.startsWith("//")) return href;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const base = new URL(publicUrl);
  const prefix = base.pathname.replace(/\/$/, "");
  if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`)) return null;
  return url.pathname.slice(prefix.length) + url.search;
}

export async function emailParts(raw: string, html: string, publicUrl: string): Promise<EmailParts> {
  parser ??= import("mailparser");
  const parsed = await (await parser).simpleParser(raw, { skipHtmlToText: true, skipTextLinks: true });
  return {
    text: parsed.text ?? "",
    headers: parsed.headerLines.map((line) => {
      const colon = line.line.indexOf(":");
      return [
        line.line.slice(0, colon),
        line.line
          .slice(colon + 1)
          .replace(/\r?\n[ \t]+/g, " ")
          .trim(),
      ] as const;
    }),
    raw,
    attachments: parsed.attachments.map((attachment) => ({
      filename: attachment.filename ?? "(no name)",
      contentType: attachment.contentType,
      size: attachment.size,
    })),
    links: (await hrefsOf(html)).map((href) => ({ href, check: sandboxPath(href, publicUrl) })),
  };
}
