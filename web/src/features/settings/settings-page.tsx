import { PageHeading } from '../../components/page-heading.js';
import { settingsRoute } from '../../router.js';
import { ApiKeys } from './api-keys.js';
import { Prices } from './prices.js';

/** Project settings: the entity's API keys (for its admins) and the project's prices. */
export function SettingsPage() {
  const { entity, project } = settingsRoute.useParams();
  return (
    <main className="page narrow-wide settings-page">
      <PageHeading>Settings</PageHeading>
      <ApiKeys entity={entity} />
      <Prices projectId={`${entity}/${project}`} />
    </main>
  );
}
