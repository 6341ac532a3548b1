import type { JsonSchema } from './openapi.ts';
import { CLIENT_MESSAGE_SCHEMAS, SOCKET_REPLY_SCHEMAS, USER_EVENT_SCHEMAS } from './user-event-schemas.ts';

/**
 * The AsyncAPI 3.0 document of what the HTTP document cannot describe (ADR 041): the WebSocket of user events and
 * the server-sent-event streams. Served at `/api/v1/asyncapi.json`. Actions are the service's: it `send`s events and
 * `receive`s the client's messages.
 */
export interface SseMessage {
  /** The SSE `event:` name; null for data-only pieces (the browser's `message` event). */
  event: string | null;
  summary: string;
  payload: JsonSchema;
}

export interface SseStream {
  /** The channel id, e.g. `chatStream`. */
  id: string;
  /** The HTTP path under the API prefix, e.g. `/llm/chat`. */
  path: string;
  description: string;
  messages: Record<string, SseMessage>;
}

type Json = Record<string, unknown>;
const messageRef = (channel: string, name: string): Json => ({ $ref: `#/channels/${channel}/messages/${name}` });

export class AsyncApiDocument {
  private readonly channels: Record<string, Json> = {};
  private readonly operations: Record<string, Json> = {};

  constructor(
    private readonly info: { title: string; version: string },
    private readonly prefix: string,
    private readonly schemas: Record<string, JsonSchema>,
  ) {
    this.addUserSocket();
  }

  /** A `text/event-stream` answer of an HTTP operation: every stream of the API is described here, by the module that serves it. */
  addSseStream(stream: SseStream): void {
    const messages = Object.fromEntries(
      Object.entries(stream.messages).map(([name, message]) => [
        name,
        { name, contentType: 'application/json', summary: message.summary, 'x-sse-event': message.event ?? 'message', payload: message.payload },
      ]),
    );
    this.channels[stream.id] = { address: `${this.prefix}${stream.path}`, title: `Server-sent events of ${stream.path}`, description: stream.description, messages };
    this.operations[`send${stream.id[0]!.toUpperCase()}${stream.id.slice(1)}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${stream.id}` },
      summary: `The pieces of the ${stream.path} stream, in order`,
      messages: Object.keys(messages).map((name) => messageRef(stream.id, name)),
    };
  }

  private addUserSocket(): void {
    const message = (name: string, summary: string, payload: JsonSchema): Json => ({ name, contentType: 'application/json', summary, payload });
    const events = Object.fromEntries(Object.entries(USER_EVENT_SCHEMAS).map(([type, payload]) => [type, message(type, `A ${type} event of one of the caller's jobs`, payload)]));
    const replies = Object.fromEntries(Object.entries(SOCKET_REPLY_SCHEMAS).map(([type, payload]) => [type, message(type, `Answer: ${type}`, payload)]));
    const client = Object.fromEntries(Object.entries(CLIENT_MESSAGE_SCHEMAS).map(([type, payload]) => [type, message(type, `Client message: ${type}`, payload)]));
    this.channels.userSocket = {
      address: `${this.prefix}/ws`,
      title: 'Real-time events of the caller (WebSocket)',
      description: [
        'Open with the access_token cookie or `Authorization: Bearer <access token>` on the upgrade (API keys are not accepted); an `Origin` outside CORS_ORIGINS (and not this host) gets 403, no or a bad token 401.',
        'A user receives the events of their own jobs, each with `seq` (one more per event of that user). Send `sync` (with `since`: the last seq seen) to replay what was missed, then get one `job.snapshot`.',
        'The server sends WebSocket ping frames every WS_PING_INTERVAL and drops sockets that do not answer with pong (browsers do this by themselves); there is no ping message in JSON.',
        'Close codes: 4001 the access token expired (send `auth` with a fresh token before, or reconnect and sync); 4003 the login was logged out or revoked (a session.revoked notice between instances, never sent to clients); 1001 the server is shutting down.',
      ].join('\n\n'),
      messages: { ...events, ...replies, ...client },
      bindings: { ws: { method: 'GET' } },
    };
    this.operations.sendUserEvents = {
      action: 'send',
      channel: { $ref: '#/channels/userSocket' },
      summary: 'Job and publication events of the caller, live or replayed by sync',
      messages: Object.keys(events).map((name) => messageRef('userSocket', name)),
    };
    this.operations.sendReplies = {
      action: 'send',
      channel: { $ref: '#/channels/userSocket' },
      summary: 'Answers to sync (job.snapshot), auth (auth.ok) and to malformed messages (error)',
      messages: Object.keys(replies).map((name) => messageRef('userSocket', name)),
    };
    this.operations.receiveClientMessages = {
      action: 'receive',
      channel: { $ref: '#/channels/userSocket' },
      summary: 'sync (replay and snapshot) and auth (renew the socket with a fresh access token)',
      messages: Object.keys(client).map((name) => messageRef('userSocket', name)),
    };
  }

  toJSON(): Json {
    return {
      asyncapi: '3.0.0',
      info: {
        ...this.info,
        description: `Messages of the WebSocket and the server-sent-event streams of the media generation service; the HTTP operations are in ${this.prefix}/openapi.json.`,
      },
      defaultContentType: 'application/json',
      channels: this.channels,
      operations: this.operations,
      components: { schemas: this.schemas },
    };
  }
}
