import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for the part of GitHub's REST API the GitHub Actions recipe calls, on 127.0.0.1:
// its pull requests (list, open), comments on them, and the repository's artifacts (list,
// download). Every request is recorded, so that a test can say what the workflow asked.

export interface ApiRequest {
  method: string;
  /** The path and query, e.g. `/repos/owner/board/pulls?head=owner:kanban-supervisor/nightly&base=main&state=open`. */
  url: string;
  authorization: string;
  body: unknown;
}

export interface Pull {
  number: number;
  head: { ref: string };
  base: { ref: string };
  title: string;
  body: string;
  state: 'open' | 'closed';
}

export interface FakeGitHubApi {
  /** `http://127.0.0.1:PORT`: GITHUB_API_URL. */
  url: string;
  requests: ApiRequest[];
  pulls: Pull[];
  comments: { issue: number; body: string }[];
  /** Artifacts the repository holds: their name, the branch of their run and the zip file's bytes. */
  artifacts: { name: string; branch: string; zip: Buffer }[];
  /** Answer POST …/pulls with 403 and this message, as GitHub does when Actions may not open pull requests. */
  refusePulls?: string;
  close(): Promise<void>;
}

/**
 * The API of the repository `repository` (owner/name), for the token `token` (a request without
 * it gets 401). `headSha` gives a branch's tip, as GitHub reads it from the repository.
 */
export async function fakeGitHubApi(
  repository: string,
  token: string,
  headSha: (branch: string) => Promise<string>,
): Promise<FakeGitHubApi> {
  const api: Omit<FakeGitHubApi, 'url' | 'close'> = { requests: [], pulls: [], comments: [], artifacts: [] };
  const prefix = `/repos/${repository}`;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const request: ApiRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization ?? '',
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      api.requests.push(request);
      answer(request).then(
        ([status, body]) => {
          if (Buffer.isBuffer(body)) res.writeHead(status, { 'Content-Type': 'application/zip' }).end(body);
          else res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
        },
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const withSha = async (pull: Pull) => ({
    ...pull,
    head: { ...pull.head, sha: await headSha(pull.head.ref) },
    html_url: `https://github.example/${repository}/pull/${pull.number}`,
  });

  async function answer(request: ApiRequest): Promise<[number, unknown]> {
    if (request.authorization !== `Bearer ${token}`) return [401, { message: 'Bad credentials' }];
    const { pathname, searchParams } = new URL(request.url, url);
    if (pathname === `${prefix}/pulls` && request.method === 'GET') {
      const owner = repository.split('/')[0];
      const found = api.pulls.filter(
        (p) =>
          (!searchParams.get('head') || searchParams.get('head') === `${owner}:${p.head.ref}`) &&
          (!searchParams.get('base') || searchParams.get('base') === p.base.ref) &&
          (searchParams.get('state') ?? 'open') === p.state,
      );
      return [200, await Promise.all(found.map(withSha))];
    }
    if (pathname === `${prefix}/pulls` && request.method === 'POST') {
      if (api.refusePulls) return [403, { message: api.refusePulls }];
      const { head, base, title, body } = request.body as Record<string, string>;
      if (api.pulls.some((p) => p.state === 'open' && p.head.ref === head && p.base.ref === base))
        return [
          422,
          { message: 'Validation Failed', errors: [{ message: `A pull request already exists for ${head}.` }] },
        ];
      const pull: Pull = {
        number: api.pulls.length + 1,
        head: { ref: head! },
        base: { ref: base! },
        title: title!,
        body: body!,
        state: 'open',
      };
      api.pulls.push(pull);
      return [201, await withSha(pull)];
    }
    const comment = new RegExp(`^${prefix}/issues/(\\d+)/comments$`).exec(pathname);
    if (comment && request.method === 'POST') {
      api.comments.push({ issue: Number(comment[1]), body: (request.body as { body: string }).body });
      return [201, { id: api.comments.length }];
    }
    if (pathname === `${prefix}/actions/artifacts` && request.method === 'GET') {
      const artifacts = api.artifacts
        .map((a, id) => ({
          id,
          name: a.name,
          expired: false,
          created_at: new Date(Date.UTC(2026, 0, 1 + id)).toISOString(),
          archive_download_url: `${url}${prefix}/actions/artifacts/${id}/zip`,
          workflow_run: { id: 1000 + id, head_branch: a.branch },
        }))
        .filter((a) => !searchParams.get('name') || a.name === searchParams.get('name'));
      return [200, { total_count: artifacts.length, artifacts }];
    }
    const zip = new RegExp(`^${prefix}/actions/artifacts/(\\d+)/zip$`).exec(pathname);
    if (zip && api.artifacts[Number(zip[1])]) return [200, api.artifacts[Number(zip[1])]!.zip];
    return [404, { message: 'Not Found' }];
  }

  return Object.assign(api, {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as FakeGitHubApi;
}
