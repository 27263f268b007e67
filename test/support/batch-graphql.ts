import { FormData, request } from 'undici';

/** A gateway's reply to a GraphQL request, as read off the wire. */
export interface BatchGraphQLBody {
  data?: any;
  errors?: Array<{ message: string; extensions?: any }>;
}

export interface BatchUploadOptions {
  /** The bearer key as sent (`apiKey(name)` for a named one); without it no authorization header is sent. */
  key?: string;
  /** The file's name, as a browser sends it. */
  fileName?: string;
  /** The file part's content type; none unless given. */
  type?: string;
  /** importBatch's arguments besides the file (`force`). */
  variables?: Record<string, unknown>;
  /** The batch fields the reply selects. */
  fields?: string;
  /** More request headers (`x-request-id`). */
  headers?: Record<string, string>;
}

const importBatch = (fields: string) => `mutation($file: File!, $force: Boolean) { importBatch(file: $file, force: $force) {
  __typename ... on ImportBatchSuccess { batch { ${fields} } } ... on BatchError { code message } } }`;

/**
 * importBatch of `content` as a GraphQL multipart request over real HTTP, as the page, a
 * browser or curl sends it; the response, unread (a caller may need to see the request fail).
 */
export function batchUploadRequest(url: string, content: Buffer | string, options: BatchUploadOptions = {}) {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({ query: importBatch(options.fields ?? 'id'), variables: { file: null, ...options.variables } }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  const blob = new Blob(
    [typeof content === 'string' ? content : new Uint8Array(content)],
    options.type === undefined ? {} : { type: options.type },
  );
  form.append('0', blob, options.fileName ?? 'payroll.csv');
  return request(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'x-graphql-yoga-csrf': '1',
      ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
      ...options.headers,
    },
    body: form,
  });
}

/** importBatch of `content` (batchUploadRequest): the HTTP status and the reply's body. */
export async function postBatchUpload(
  url: string,
  content: Buffer | string,
  options: BatchUploadOptions = {},
): Promise<{ statusCode: number; body: BatchGraphQLBody }> {
  const response = await batchUploadRequest(url, content, options);
  return { statusCode: response.statusCode, body: (await response.body.json()) as BatchGraphQLBody };
}

/** importBatch of `content`: the batch imported (its `fields`, the id unless named); a refusal throws. */
export async function uploadBatch(url: string, content: Buffer | string, options: BatchUploadOptions = {}): Promise<any> {
  const { body } = await postBatchUpload(url, content, options);
  const batch = body.data?.importBatch?.batch;
  if (batch === undefined) throw new Error(`import refused: ${JSON.stringify(body)}`);
  return batch;
}

/** A batch's rows counted by status, as GraphQL reads them (Batch.counts), without a key. */
export async function countsThroughGraphQL(url: string, batchId: string): Promise<Record<string, number>> {
  const response = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($id: ID!) { batch(id: $id) { counts { status count } } }', variables: { id: batchId } }),
  });
  const body = (await response.body.json()) as { data: { batch: { counts: Array<{ status: string; count: number }> } } };
  return Object.fromEntries(body.data.batch.counts.map((c) => [c.status, c.count]));
}
