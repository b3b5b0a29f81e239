/**
 * A real SMTP server for tests (smtp-server on a free loopback port): it keeps every message it
 * accepts, parsed with mailparser, with the envelope recipients the relay sent it to.
 */
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  parsed: ParsedMail;
  /** RCPT TO of the SMTP envelope: who the relay delivered this copy to. */
  envelopeTo: string[];
}

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>`, for the sandbox's smtpUrl. */
  url: string;
  port: number;
  /** Every message accepted so far, in order. */
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({ parsed, envelopeTo: session.envelope.rcptTo.map((r) => r.address) });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
