/**
 * What the account mails share (ADR 064, 065): their text's shape, how they word a link's end of life, and where a
 * link's token goes (the fragment of a page of the web client, which no server log, proxy log or Referer carries).
 */

/** A link to one of the web client's pages carrying a one-time token: `/reset-password`, `/confirm-email`. */
export const tokenLink = (frontendUrl: string, page: string, token: string): string => `${frontendUrl.replace(/\/+$/, '')}${page}#token=${token}`;

/** An account mail's text: what happened, the body, what to do if it was not them, and the service's address to sign. */
export const mailText = (opening: string, frontendUrl: string, body: string[], ifNotYou: string): string =>
  [opening, '', ...body, ...(body.length > 0 ? [''] : []), ifNotYou, '', '-- ', frontendUrl, ''].join('\n');

/** A link's end of life as a mail says it: to the minute, in UTC. */
export const untilUtc = (date: Date): string => `${date.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
