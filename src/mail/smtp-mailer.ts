import { createTransport, type Transporter } from 'nodemailer';
import { DependencyUnavailableError } from '../domain/errors.js';
import type { MailMessage, Mailer } from '../domain/ports/mailer.js';

/** Sends over SMTP (nodemailer); an unreachable or refusing server is a 503 for the caller. */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    const smtp = new URL(url);
    this.transport = createTransport({
      host: smtp.hostname,
      port: Number(smtp.port) || (smtp.protocol === 'smtps:' ? 465 : 25),
      secure: smtp.protocol === 'smtps:',
      auth: smtp.username ? { user: decodeURIComponent(smtp.username), pass: decodeURIComponent(smtp.password) } : undefined,
      // short timeouts: the caller waits for the send, and the mail can be asked for again
      connectionTimeout: 5_000,
      greetingTimeout: 5_000,
      socketTimeout: 10_000,
    });
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
    } catch (cause) {
      throw new DependencyUnavailableError('mail server', { cause });
    }
  }

  close(): void {
    this.transport.close();
  }
}
