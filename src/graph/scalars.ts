import { GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { GraphError } from './graph-errors.js';

/*
 * NerdGraph's custom scalars. JSON-shaped ones (results, attribute maps) pass objects through both
 * ways and take GraphQL object literals as input (`customAttributes: {region: "eu", pods: 2}`, as
 * the change-tracking docs write them). Numeric ones accept what clients send and refuse the rest
 * with a message naming the scalar, so a wrong argument fails validation instead of a resolver.
 */

function json(name: string, description: string): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });
}

function numeric(name: string, description: string, integer: boolean): GraphQLScalarType {
  const check = (value: unknown): number => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) {
      throw GraphError.invalidInput(`${name} must be ${integer ? 'a whole number' : 'a number'}, not ${JSON.stringify(value)}`);
    }
    return n;
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => value,
    parseValue: check,
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.INT && ast.kind !== Kind.FLOAT && ast.kind !== Kind.STRING) {
        throw GraphError.invalidInput(`${name} must be ${integer ? 'a whole number' : 'a number'}`);
      }
      return check(ast.value);
    },
  });
}

function text(name: string, description: string): GraphQLScalarType {
  const check = (value: unknown): string => {
    if (typeof value !== 'string') throw GraphError.invalidInput(`${name} must be a string, not ${JSON.stringify(value)}`);
    return value;
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => value,
    parseValue: check,
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.STRING) throw GraphError.invalidInput(`${name} must be a string`);
      return ast.value;
    },
  });
}

export const SCALARS = {
  EntityGuid: text('EntityGuid', 'An entity GUID.'),
  Nrql: text('Nrql', 'NRQL text.'),
  SecureValue: text('SecureValue', 'A secret.'),
  DateTime: text('DateTime', 'An ISO-8601 date and time.'),
  SemVer: text('SemVer', 'A semantic version.'),
  AgentApplicationSettingsErrorCollectorHttpStatus: text('AgentApplicationSettingsErrorCollectorHttpStatus', 'An HTTP status code as text.'),
  // Seconds are whole on input in NerdGraph's description, but summaries carry fractions on output.
  Seconds: numeric('Seconds', 'A duration in seconds.', false),
  EpochMilliseconds: numeric('EpochMilliseconds', 'Milliseconds since the Unix epoch.', true),
  NrdbResult: json('NrdbResult', 'One result row of an NRQL query.'),
  NrdbRawResults: json('NrdbRawResults', "The engine's whole answer."),
  AttributeMap: json('AttributeMap', 'A JSON object.'),
  ChangeTrackingRawCustomAttributesMap: json('ChangeTrackingRawCustomAttributesMap', 'Custom attributes.'),
  AgentApplicationSettingsRawJsConfiguration: json('AgentApplicationSettingsRawJsConfiguration', "The browser agent's configuration."),
} as const;
