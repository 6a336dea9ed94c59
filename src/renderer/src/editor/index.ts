export { ScenarioEditor, type MarkerSummary } from './LazyScenarioEditor';
export { EditorToolbar } from './EditorToolbar';
export { EditorStatus } from './EditorStatus';
export { EditorTitle } from './EditorTitle';
export { useScenarioDocument, type ScenarioDocumentState } from './useScenarioDocument';
export { useScenarioValidation } from './useScenarioValidation';
export { useFileActions, type FileActions } from './useFileActions';
export { recordDocument, replayBackendNote, templateDocument, scenarioWorld } from './document';
