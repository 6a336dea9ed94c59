// Monaco's workers, bundled from the local monaco-editor package (never a CDN). Imported before
// the editor API, which reads MonacoEnvironment when it loads; globalAPI exposes `monaco` on the
// page so tests and the devtools console can read the models and markers.
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/language/json/json.worker?worker';

self.MonacoEnvironment = {
  globalAPI: true,
  getWorker: (_workerId: string, label: string) => (label === 'json' ? new JsonWorker() : new EditorWorker()),
};
