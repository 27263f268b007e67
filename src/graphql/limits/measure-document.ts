import {
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { INTROSPECTION_LISTS, LIMIT_ARGUMENT, PAGE_ARGUMENTS, UNPAGED_LIST_ITEMS } from './cost-model.ts';

/** What the limits look at, for one operation. */
export interface Measure {
  /** Fields on the longest path outside introspection, leaves included. */
  depth: number;
  cost: number;
  aliases: number;
  directives: number;
  /** Fields on the longest path inside `__schema` / `__type`. */
  introspectionDepth: number;
  /** Introspection list fields nested in one another. */
  introspectionLists: number;
}

const ZERO: Measure = { depth: 0, cost: 0, aliases: 0, directives: 0, introspectionDepth: 0, introspectionLists: 0 };

/** Two selections side by side: paths compete, counts add up. */
function beside(a: Measure, b: Measure): Measure {
  return {
    depth: Math.max(a.depth, b.depth),
    cost: a.cost + b.cost,
    aliases: a.aliases + b.aliases,
    directives: a.directives + b.directives,
    introspectionDepth: Math.max(a.introspectionDepth, b.introspectionDepth),
    introspectionLists: Math.max(a.introspectionLists, b.introspectionLists),
  };
}

type AnyField = GraphQLField<unknown, unknown>;

/**
 * Measures each operation in one walk of the document, fragments counted where they are
 * spread. A fragment is measured once per way it is entered (memoised), so a document of
 * fragments spreading fragments costs a walk proportional to its size, not to what it
 * expands to; a spread cycle is not followed (the spec's rules refuse it afterwards).
 */
export class DocumentMeasurer {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly measured = new Map<string, Measure>();
  private readonly entered = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
  }

  operation(operation: OperationDefinitionNode): Measure {
    const root = this.schema.getRootType(operation.operation) ?? undefined;
    const measure = this.selections(operation.selectionSet, root, undefined, false);
    const own = operation.directives?.length ?? 0;
    const ofVariables = (operation.variableDefinitions ?? []).reduce((n, v) => n + (v.directives?.length ?? 0), 0);
    return { ...measure, directives: measure.directives + own + ofVariables };
  }

  /**
   * @param page the page size of the connection this selection belongs to: its list
   *   fields (`edges`, `nodes`) hold that many items.
   */
  private selections(
    set: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    page: number | undefined,
    introspection: boolean,
  ): Measure {
    let total = ZERO;
    for (const selection of set.selections) total = beside(total, this.selection(selection, parent, page, introspection));
    return total;
  }

  private selection(node: SelectionNode, parent: GraphQLNamedType | undefined, page: number | undefined, introspection: boolean): Measure {
    let measure: Measure;
    if (node.kind === Kind.FIELD) measure = this.field(node, parent, page, introspection);
    else if (node.kind === Kind.INLINE_FRAGMENT) {
      const type = node.typeCondition === undefined ? parent : this.schema.getType(node.typeCondition.name.value);
      measure = this.selections(node.selectionSet, type ?? undefined, page, introspection);
    } else measure = this.spread(node.name.value, page, introspection);
    return { ...measure, directives: measure.directives + (node.directives?.length ?? 0) };
  }

  private spread(name: string, page: number | undefined, introspection: boolean): Measure {
    const key = `${name}\u0000${page ?? ''}\u0000${introspection}`;
    const known = this.measured.get(key);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name);
    if (fragment === undefined || this.entered.has(name)) return ZERO;
    this.entered.add(name);
    const type = this.schema.getType(fragment.typeCondition.name.value) ?? undefined;
    const inner = this.selections(fragment.selectionSet, type, page, introspection);
    this.entered.delete(name);
    const measure = { ...inner, directives: inner.directives + (fragment.directives?.length ?? 0) };
    this.measured.set(key, measure);
    return measure;
  }

  private field(node: FieldNode, parent: GraphQLNamedType | undefined, page: number | undefined, introspection: boolean): Measure {
    const name = node.name.value;
    const aliases = node.alias === undefined ? 0 : 1;
    const definition = this.definitionOf(parent, name);
    const inIntrospection = introspection || name === '__schema' || name === '__type';
    const pages = pageSizeOf(node, definition);
    const type = definition?.type;
    const isList = type !== undefined && isListType(getNullableType(type));
    // A connection's page size goes to the lists right inside it (edges); a paged list is paged itself.
    const childPage = pages !== undefined && !isList ? pages : undefined;
    const child =
      node.selectionSet === undefined
        ? ZERO
        : this.selections(node.selectionSet, type === undefined ? undefined : getNamedType(type), childPage, inIntrospection);
    if (inIntrospection) {
      return {
        ...child,
        aliases: child.aliases + aliases,
        introspectionDepth: child.introspectionDepth + 1,
        introspectionLists: child.introspectionLists + (INTROSPECTION_LISTS.has(name) ? 1 : 0),
      };
    }
    if (node.selectionSet === undefined) return { ...ZERO, depth: 1, aliases };
    const items = !isList ? 1 : (pages ?? page ?? limitOf(node, definition) ?? UNPAGED_LIST_ITEMS);
    return { ...child, depth: child.depth + 1, cost: (1 + child.cost) * items, aliases: child.aliases + aliases };
  }

  private definitionOf(parent: GraphQLNamedType | undefined, name: string): AnyField | undefined {
    if (name === '__schema' && parent === this.schema.getQueryType()) return SchemaMetaFieldDef as AnyField;
    if (name === '__type' && parent === this.schema.getQueryType()) return TypeMetaFieldDef as AnyField;
    if (parent === undefined || !(isObjectType(parent) || isInterfaceType(parent))) return undefined;
    return parent.getFields()[name] as AnyField | undefined;
  }
}

/** `first`/`last` of a field that has them: the literal cut to its maximum, else the maximum. */
function pageSizeOf(node: FieldNode, definition: AnyField | undefined): number | undefined {
  const names = Object.keys(PAGE_ARGUMENTS) as Array<keyof typeof PAGE_ARGUMENTS>;
  const declared = names.filter((name) => definition?.args.some((arg) => arg.name === name));
  if (declared.length === 0) return undefined;
  let size: number | undefined;
  for (const name of declared) {
    const value = node.arguments?.find((arg) => arg.name.value === name)?.value;
    const max = PAGE_ARGUMENTS[name];
    const asked = value?.kind === Kind.INT ? Math.min(Math.max(Number(value.value), 0), max) : value === undefined ? undefined : max;
    if (asked !== undefined) size = Math.max(size ?? 0, asked);
  }
  return size ?? Math.max(...declared.map((name) => PAGE_ARGUMENTS[name]));
}

/** A `limit` argument: the literal, else the declared default, else the largest limit. */
function limitOf(node: FieldNode, definition: AnyField | undefined): number | undefined {
  const declared = definition?.args.find((arg) => arg.name === LIMIT_ARGUMENT.name);
  if (declared === undefined) return undefined;
  const value = node.arguments?.find((arg) => arg.name.value === LIMIT_ARGUMENT.name)?.value;
  // A larger literal is refused by the argument's own check, which says more than a cost would.
  if (value?.kind === Kind.INT) return Math.min(Math.max(Number(value.value), 0), LIMIT_ARGUMENT.max);
  if (value === undefined && typeof declared.defaultValue === 'number') return declared.defaultValue;
  return LIMIT_ARGUMENT.max;
}
