import { getRouteApi, Link } from '@tanstack/react-router';
import { useTrainingModels } from '../../api/training.js';
import { PageHeading } from '../../ui/page-heading.js';

const trainingRoute = getRouteApi('/$entity/$project/weave/training');

/** The project's training models (docs/spec/training.md §4.12 list), as the ART client registered them. */
export function TrainingPage() {
  const { entity, project } = trainingRoute.useParams();
  const models = useTrainingModels(entity, project);
  return (
    <main className="page">
      <PageHeading>Training</PageHeading>
      {models.isPending && <p className="muted">Loading models…</p>}
      {models.isError && <p role="alert">Could not load models: {models.error.message}</p>}
      {models.data && models.data.length === 0 && (
        <p>No models yet. The ART client&apos;s ServerlessBackend registers one when it trains here.</p>
      )}
      {models.data && models.data.length > 0 && (
        <table className="simple-table" aria-label="Training models">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Base model</th>
              <th scope="col">Trainer</th>
            </tr>
          </thead>
          <tbody>
            {models.data.map((m) => (
              <tr key={m.id}>
                <th scope="row">
                  <Link to="/$entity/$project/weave/training/$modelId" params={{ entity, project, modelId: m.id }}>
                    {m.name}
                  </Link>
                </th>
                <td className="mono small">{m.base_model}</td>
                <td className="small">{m.trainer ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
