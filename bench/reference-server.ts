/**
 * The benchmark's reference: a bare Express 5 app that answers each row's request with a fixed
 * document of the same bytes as the real service's answer. It is the ceiling the framework allows
 * on this machine, so the real service's figures are reported as a fraction of it.
 *
 * The bench sets a row's document with PUT /__doc/<row> before loading it; GET and POST
 * /r/<row> answer it (POST reads and parses its JSON body first, as any JSON API must).
 */
import express from 'express';

interface Document {
  status: number;
  body: unknown;
}

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('reference-server: PORT must be set\n');
  process.exit(1);
}

const documents = new Map<string, Document>();
const app = express();
app.disable('x-powered-by');
app.set('etag', false);

app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
app.put('/__doc/:row', express.json({ limit: '10mb' }), (req, res) => {
  documents.set(req.params.row, req.body as Document);
  res.status(204).end();
});

function answer(row: string, res: express.Response): void {
  const doc = documents.get(row);
  if (!doc) {
    res.status(404).json({ error: `no document for ${row}` });
    return;
  }
  if (doc.status === 304) res.status(304).end();
  else res.status(doc.status).json(doc.body);
}

app.get('/r/:row', (req, res) => answer(req.params.row, res));
app.post('/r/:row', express.json({ limit: '64kb' }), (req, res) => answer(req.params.row, res));

const server = app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
