// A file's name from its path, as the page shows it (the lab sends paths of either system).
export const baseName = (path: string): string => path.split(/[\\/]/).pop() || path;
