/** One plain-text message to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** What the service needs to send mail (verification and password-reset links). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
