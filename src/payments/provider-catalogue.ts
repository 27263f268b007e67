import type { PayoutClient } from '../payout/client.ts';
import type { ProviderCode, ProviderInfo } from '../payout/models.ts';

export interface ProviderDetails {
  code: ProviderCode;
  name: string;
  info: ProviderInfo;
}

/**
 * Every provider with its details, loaded together (one list call plus one details call
 * each) and kept for `ttlMs`. Concurrent callers share one load; a failed load is not kept.
 */
export class ProviderCatalogue {
  private cached: { at: number; providers: Promise<ProviderDetails[]> } | undefined;

  constructor(
    private readonly client: PayoutClient,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  all(): Promise<ProviderDetails[]> {
    if (this.cached !== undefined && this.now() - this.cached.at < this.ttlMs) return this.cached.providers;
    const providers = this.load();
    const entry = { at: this.now(), providers };
    this.cached = entry;
    providers.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return providers;
  }

  async get(code: ProviderCode): Promise<ProviderDetails | undefined> {
    return (await this.all()).find((provider) => provider.code === code);
  }

  private async load(): Promise<ProviderDetails[]> {
    const list = await this.client.listProviders();
    return Promise.all(list.map(async (provider) => ({ ...provider, info: await this.client.getProvider(provider.code) })));
  }
}
