// A small rule set fitted to the code as it is: what catches mistakes, not what restyles
// (layout is Prettier's; which folder may import which is .dependency-cruiser.cjs's).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'build/**', 'node_modules/**', 'test-results/**', 'bench-results/**', '**/*.d.ts'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Terminal escapes and control characters are what some of our patterns are for (control-chars.ts).
      'no-control-regex': 'off',
      'prefer-const': 'error',
      'no-var': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
);
