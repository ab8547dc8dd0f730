import { getRouteApi } from '@tanstack/react-router';
import { PageHeading } from '../../ui/page-heading.js';
import { ApiKeys } from './api-keys.js';
import { Prices } from './prices.js';

const settingsRoute = getRouteApi('/$entity/$project/settings');

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
