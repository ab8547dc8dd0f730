import { NotFoundError } from '../errors/app-error.js';
import type { CatalogFile } from '../schemas/inference-catalog.js';

/** The partner word of each catalogue route; the seed's placeholder `partner` is an alias (docs/spec/otel-service-queues.md §C). */
const PARTNERS = {
  analysis: 'artificialanalysis',
  router: 'openrouter',
  hardware: 'nvidia',
} as const;

/**
 * Model and hardware catalogues for inference front ends (docs/spec/otel-service-queues.md §C), served from
 * the deployment's catalogue file; without one every list is empty.
 */
export class InferenceCatalogService {
  constructor(private readonly catalog: CatalogFile) {}

  routerModels(partner: string): { data: NonNullable<CatalogFile['router_models']> } {
    checkPartner(partner, PARTNERS.router);
    return { data: this.catalog.router_models ?? [] };
  }

  analysisModels(partner: string): { data: NonNullable<CatalogFile['analysis_models']> } {
    checkPartner(partner, PARTNERS.analysis);
    return { data: this.catalog.analysis_models ?? [] };
  }

  /** Serverless options of the catalogue models whose name (the part after the last `/`) is `model`, any case. */
  hardware(partner: string, model: string): { hardware: NonNullable<CatalogFile['hardware']>[string] } {
    checkPartner(partner, PARTNERS.hardware);
    const wanted = model.toLowerCase();
    const options = Object.entries(this.catalog.hardware ?? {})
      .filter(([id]) => id.slice(id.lastIndexOf('/') + 1).toLowerCase() === wanted)
      .flatMap(([, list]) => list);
    return { hardware: options.filter((option) => option.type === 'serverless') };
  }
}

function checkPartner(partner: string, real: string): void {
  if (partner !== real && partner !== 'partner') throw new NotFoundError(`Unknown inference partner '${partner}'`);
}
