import { Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

/*
 * NerdGraph's custom scalars, as resolver maps of their three functions (the SDL keeps their
 * descriptions). JSON-shaped ones (results, attribute maps) pass objects through both ways and
 * take GraphQL object literals as input (`customAttributes: {region: "eu", pods: 2}`, as the
 * change-tracking docs write them). Numeric and text ones accept what clients send and refuse the
 * rest with a TypeError: graphql-js turns it into a validation error that points at the argument
 * (a GraphQLError thrown here would lose the location), and the envelope marks it INVALID_INPUT.
 */

interface ScalarFunctions {
  readonly __serialize: (value: unknown) => unknown;
  readonly __parseValue: (value: unknown) => unknown;
  readonly __parseLiteral: (ast: ValueNode, variables?: { readonly [name: string]: unknown } | null) => unknown;
}

const json: ScalarFunctions = {
  __serialize: (value) => value,
  __parseValue: (value) => value,
  __parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
};

function numeric(name: string, integer: boolean): ScalarFunctions {
  const expected = integer ? 'a whole number' : 'a number';
  const check = (value: unknown): number => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) {
      throw new TypeError(`${name} must be ${expected}, not ${JSON.stringify(value)}`);
    }
    return n;
  };
  return {
    __serialize: (value) => value,
    __parseValue: check,
    __parseLiteral: (ast) => {
      if (ast.kind !== Kind.INT && ast.kind !== Kind.FLOAT && ast.kind !== Kind.STRING) throw new TypeError(`${name} must be ${expected}`);
      return check(ast.value);
    },
  };
}

function text(name: string): ScalarFunctions {
  return {
    __serialize: (value) => value,
    __parseValue: (value) => {
      if (typeof value !== 'string') throw new TypeError(`${name} must be a string, not ${JSON.stringify(value)}`);
      return value;
    },
    __parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new TypeError(`${name} must be a string`);
      return ast.value;
    },
  };
}

export const SCALARS = {
  EntityGuid: text('EntityGuid'),
  Nrql: text('Nrql'),
  SecureValue: text('SecureValue'),
  DateTime: text('DateTime'),
  NaiveDateTime: text('NaiveDateTime'),
  SemVer: text('SemVer'),
  AgentApplicationSettingsErrorCollectorHttpStatus: text('AgentApplicationSettingsErrorCollectorHttpStatus'),
  // Seconds are whole on input in NerdGraph's description, but summaries carry fractions on output.
  Seconds: numeric('Seconds', false),
  EpochMilliseconds: numeric('EpochMilliseconds', true),
  NrdbResult: json,
  NrdbRawResults: json,
  AttributeMap: json,
  ChangeTrackingRawCustomAttributesMap: json,
  AgentApplicationSettingsRawJsConfiguration: json,
} as const;
