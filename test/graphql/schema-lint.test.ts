import { existsSync, readFileSync } from 'node:fs';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import { Linter } from 'eslint';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/print-schema.ts';
import { schema } from '../../src/graphql/schema.ts';

/**
 * The schema lint (docs/api/graphql/schema.md): graphql-eslint's `schema-recommended` rule set,
 * with require-description widened to every kind (fields, arguments, input fields, enum
 * values), and two rules off for the reasons given in docs/api/graphql/schema.md. Run on the live schema as
 * printed (schema.graphql is the same text: server.test.ts).
 */
export const schemaLintRules: Linter.RulesRecord = {
  ...graphqlPlugin.configs['flat/schema-recommended'].rules,
  '@graphql-eslint/require-description': [
    'error',
    {
      types: true,
      rootField: true,
      FieldDefinition: true,
      InputValueDefinition: true,
      EnumValueDefinition: true,
      DirectiveDefinition: true,
    },
  ],
  // Value objects (Money, KeyValue, counts, results) have no identity of their own; every
  // object that has one implements Node (docs/api/graphql/paging.md).
  '@graphql-eslint/strict-id-in-types': 'off',
  // Balance.balance and Discrepancy.discrepancyId are published field names clients use.
  '@graphql-eslint/no-typename-prefix': 'off',
};

function lint(text: string): Linter.LintMessage[] {
  const linter = new Linter({ configType: 'flat' });
  return linter.verify(
    text,
    [
      {
        files: ['**/*.graphql'],
        languageOptions: { parser: graphqlPlugin.parser, parserOptions: { graphQLConfig: { schema: text } } },
        plugins: { '@graphql-eslint': graphqlPlugin as never },
        rules: schemaLintRules,
      },
    ],
    { filename: 'schema.graphql' },
  );
}

/** "rule  Type.field (line): message", one finding a line. */
function report(text: string, messages: Linter.LintMessage[]): string[] {
  const lines = text.split('\n');
  return messages.map((m) => {
    // The type a finding is in: the nearest definition above its line.
    let owner = '';
    for (let i = m.line - 1; i >= 0 && owner === ''; i--) {
      owner = /^(?:type|interface|input|enum|union|scalar)\s+(\w+)/.exec(lines[i] ?? '')?.[1] ?? '';
    }
    const line = lines[m.line - 1] ?? '';
    const at = /^(?:type|interface|input|enum|union|scalar)\s/.test(line) ? undefined : /^\s*(\w+)/.exec(line)?.[1];
    return `${m.ruleId ?? 'parse'}  ${owner}${at === undefined ? '' : `.${at}`} (line ${m.line}): ${m.message.split('\n')[0]}`;
  });
}

describe('schema lint', () => {
  it('finds nothing in the printed schema under the named rule set', () => {
    const text = printedSchema();
    expect(report(text, lint(text))).toEqual([]);
  });

  it('can fail: an undescribed field and a lower-case enum value are findings', () => {
    const text = 'type Query {\n  """Read."""\n  a: String\n  b: String\n}\n\n"""Kinds."""\nenum Kind {\n  """One."""\n  one\n}\n';
    const found = report(text, lint(text));
    expect(found.some((f) => f.startsWith('@graphql-eslint/require-description  Query.b'))).toBe(true);
    expect(found.some((f) => f.startsWith('@graphql-eslint/naming-convention  Kind.one'))).toBe(true);
  });
});

describe('schema descriptions', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    const missing: string[] = [];
    const need = (what: string, description: string | null | undefined) => {
      if (description == null || description.trim() === '') missing.push(what);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || (isScalarType(type) && isSpecifiedScalarType(type))) continue;
      need(type.name, type.description);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          need(`${type.name}.${field.name}`, field.description);
          for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name})`, arg.description);
        }
      }
      if (isInputObjectType(type))
        for (const field of Object.values(type.getFields())) need(`${type.name}.${field.name}`, field.description);
      if (isEnumType(type)) for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    }
    expect(missing).toEqual([]);
  });

  it('points every custom scalar at its specification (@specifiedBy): a public one, or a section of docs/ in this repository', () => {
    const custom = Object.values(schema.getTypeMap()).filter((t) => isScalarType(t) && !isSpecifiedScalarType(t));
    expect(custom.length).toBeGreaterThan(0);
    const unspecified = custom.filter((t) => {
      const url = (isScalarType(t) && t.specifiedByURL) || '';
      if (url.startsWith('https://')) return false;
      // A repository path relative to schema.graphql, with the heading it names.
      const [path, anchor] = url.split('#');
      if (path === undefined || !path.startsWith('docs/') || anchor === undefined || !existsSync(new URL(`../../${path}`, import.meta.url)))
        return true;
      const headings = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8').match(/^#+ .*$/gm) ?? [];
      return !headings.some(
        (h) =>
          h
            .replace(/^#+ /, '')
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-') === anchor,
      );
    });
    expect(unspecified.map((t) => t.name)).toEqual([]);
  });
});

describe('typed mutation errors', () => {
  it('every refusal a mutation returns implements Problem, whose code is the one ErrorCode enum', () => {
    const problem = schema.getType('Problem');
    expect(isInterfaceType(problem)).toBe(true);
    if (!isInterfaceType(problem)) return;
    expect(String(problem.getFields().code?.type)).toBe('ErrorCode!');
    const refusals = Object.values(schema.getMutationType()!.getFields()).flatMap((field) => {
      const result = getNamedType(field.type);
      return isUnionType(result) ? result.getTypes().filter((t) => !t.name.endsWith('Success')) : [];
    });
    expect(refusals.length).toBeGreaterThan(0);
    expect([...new Set(refusals.filter((t) => !t.getInterfaces().includes(problem)).map((t) => t.name))]).toEqual([]);
    for (const type of refusals) expect(String(type.getFields().code?.type), type.name).toBe('ErrorCode!');
  });
});
