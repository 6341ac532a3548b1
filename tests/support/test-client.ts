import { randomUUID } from 'node:crypto';

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A browser-like client: keeps cookies and sends the XSRF header on state-changing requests. */
export class TestClient {
  readonly cookies = new Map<string, string>();
  bearer: string | null = null;
  sendXsrf = true;

  constructor(readonly baseUrl: string, readonly prefix = '/api/v1') {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    const finalHeaders: Record<string, string> = { ...headers };
    if (body !== undefined && !(body instanceof FormData)) finalHeaders['content-type'] ??= 'application/json';
    if (this.cookies.size > 0) finalHeaders.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.bearer) finalHeaders.authorization = `Bearer ${this.bearer}`;
    if (this.sendXsrf && method !== 'GET' && this.cookies.has('XSRF-TOKEN')) finalHeaders['x-xsrf-token'] ??= this.cookies.get('XSRF-TOKEN')!;
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path.startsWith('/api') ? '' : this.prefix}${path}`;
    const response = await fetch(url, {
      method,
      headers: finalHeaders,
      body: body === undefined ? undefined : body instanceof FormData ? body : typeof body === 'string' ? body : JSON.stringify(body),
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      const expired = attributes.some((a) => /expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text.length > 0) parsed = JSON.parse(text);
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  /** Registers and logs in a fresh user; returns its profile. */
  async signUp(overrides: { email?: string; password?: string; displayName?: string } = {}) {
    const email = overrides.email ?? `user-${randomUUID()}@example.com`;
    const password = overrides.password ?? 'correct horse battery';
    const registered = await this.post('/auth/register', { email, password, displayName: overrides.displayName ?? 'Test User' });
    if (registered.status !== 201) throw new Error(`register failed: ${registered.status} ${JSON.stringify(registered.body)}`);
    const login = await this.post('/auth/login', { email, password });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
    return { ...login.body.user, password } as { id: string; email: string; role: string; coinBalance: number; password: string };
  }
}
