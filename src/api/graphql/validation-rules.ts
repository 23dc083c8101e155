import {
  GraphQLError,
  GraphQLNonNull,
  isListType,
  isNonNullType,
  isTypeSubTypeOf,
  Kind,
  OverlappingFieldsCanBeMergedRule,
  specifiedRules,
  typeFromAST,
  VariablesInAllowedPositionRule,
  type ASTVisitor,
  type GraphQLSchema,
  type GraphQLType,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';

/*
 * Two of GraphQL's validation rules are stricter than NerdGraph, and real clients rely on the
 * difference:
 *
 * - newrelic-client-go selects `runningAgentVersions { maxVersion }` in fragments on APM entities
 *   (a String) and browser entities (an Int) side by side. The two can never meet in one object,
 *   and graphql-js executes each per its runtime type; only the static "conflicting types" check
 *   refuses it. That one report is dropped; every other overlap is still refused.
 * - New Relic's own tutorial declares `$guids: EntityGuid!` and passes it to `entities(guids:
 *   [EntityGuid]!)`. A variable of a list's item type is allowed in a list position; the schema's
 *   resolvers then receive one value where a list is declared (see `acceptSingleItems`).
 */

/** The overlap rule without its "they return conflicting types" reports. */
function overlapsOfOneShape(context: ValidationContext): ASTVisitor {
  const lenient = new Proxy(context, {
    get(target, property, receiver) {
      if (property === 'reportError') {
        return (error: GraphQLError) => {
          if (!/ they return conflicting types /.test(error.message)) target.reportError(error);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return OverlappingFieldsCanBeMergedRule(lenient);
}

/**
 * Whether a variable of `varType` (with its default) may stand where `locationType` (with its
 * default) is expected: GraphQL's rule — a nullable variable fills a non-null position only when
 * a default stands in for null — plus the position of one item of a list.
 */
function fitsPosition(schema: GraphQLSchema, varType: GraphQLType, varDefault: ValueNode | undefined, locationType: GraphQLType, locationDefault: unknown): boolean {
  const defaulted = (varDefault !== undefined && varDefault.kind !== Kind.NULL) || locationDefault !== undefined;
  const effective = !isNonNullType(varType) && defaulted ? new GraphQLNonNull(varType) : varType;
  if (isTypeSubTypeOf(schema, effective, locationType)) return true;
  const position = isNonNullType(locationType) ? locationType.ofType : locationType;
  if (!isListType(position) || !isTypeSubTypeOf(schema, effective, position.ofType)) return false;
  // One item becomes a list of one; a null would leave a non-null list position empty.
  return !isNonNullType(locationType) || isNonNullType(effective);
}

/** Variables in allowed positions, a list's item type counting as allowed in the list's position. */
function variablesInAllowedPositionsOrItems(context: ValidationContext): ASTVisitor {
  let definitions = new Map<string, VariableDefinitionNode>();
  return {
    OperationDefinition: {
      enter() {
        definitions = new Map();
      },
      leave(operation) {
        for (const { node, type, defaultValue } of context.getRecursiveVariableUsages(operation)) {
          const definition = definitions.get(node.name.value);
          if (!definition || !type) continue;
          const varType = typeFromAST(context.getSchema(), definition.type);
          if (!varType || fitsPosition(context.getSchema(), varType, definition.defaultValue, type, defaultValue)) continue;
          context.reportError(new GraphQLError(
            `Variable "$${node.name.value}" of type "${String(varType)}" used in position expecting type "${String(type)}".`,
            { nodes: [definition, node] },
          ));
        }
      },
    },
    VariableDefinition(node) {
      definitions.set(node.variable.name.value, node);
    },
  };
}

/**
 * A UTF-16 surrogate without its pair: text no store keeps as sent (it becomes U+FFFD), so what a
 * mutation answered and what is read back would differ. graphql-js refuses such characters in a
 * document's string literals; variables arrive as JSON, which can hold them.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** GraphQL's specified rules with the two above in place of the strict ones. */
export const GRAPH_VALIDATION_RULES: readonly ValidationRule[] = specifiedRules.map((rule) => {
  if (rule === OverlappingFieldsCanBeMergedRule) return overlapsOfOneShape;
  if (rule === VariablesInAllowedPositionRule) return variablesInAllowedPositionsOrItems;
  return rule;
});
