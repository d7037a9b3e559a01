import { EntityErrors } from '../errors.ts';

/** The scalar types a field can declare. */
export const FIELD_TYPES = ['string', 'number', 'boolean'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldDefinition {
  /** Internal code (`D_I/57`). */
  readonly code: string;
  /** Readable name (`CityCodeDescription`); `null` for an unmapped field. */
  readonly name: string | null;
  readonly type: FieldType;
  readonly description: string;
}

export interface EntityTypeDefinition {
  readonly code: string;
  readonly name: string;
  readonly segment: string;
  readonly description: string;
  readonly fields: readonly FieldDefinition[];
}

/** The name a client uses for a field: its readable name, or the code of an unmapped field. */
export function wireName(field: FieldDefinition): string {
  return field.name ?? field.code;
}

/** One entity type with its field map: resolves the names clients send. */
export class EntityMapping {
  readonly wireNames: readonly string[];
  private readonly byReadableName = new Map<string, FieldDefinition>();
  private readonly byUnmappedCode = new Map<string, FieldDefinition>();
  private readonly byCode = new Map<string, FieldDefinition>();

  constructor(readonly type: EntityTypeDefinition) {
    for (const field of type.fields) {
      this.byCode.set(field.code, field);
      if (field.name === null) this.byUnmappedCode.set(field.code, field);
      else this.byReadableName.set(field.name.toLowerCase(), field);
    }
    this.wireNames = type.fields.map(wireName);
  }

  /** Readable names match case-insensitively; unmapped fields match their exact code. */
  findField(name: string): FieldDefinition | undefined {
    return this.byReadableName.get(name.toLowerCase()) ?? this.byUnmappedCode.get(name);
  }

  /** As `findField`, or a 400 `FIELD_UNKNOWN` naming `name` and the valid names. */
  field(name: string): FieldDefinition {
    const field = this.findField(name);
    if (field === undefined) throw EntityErrors.fieldUnknown(name, this.wireNames);
    return field;
  }

  fieldByCode(code: string): FieldDefinition | undefined {
    return this.byCode.get(code);
  }
}

/** Every entity type of the back-end, by path segment, readable name and internal code. */
export class Catalog {
  readonly mappings: readonly EntityMapping[];
  private readonly byPathName = new Map<string, EntityMapping>();
  private readonly byCode = new Map<string, EntityMapping>();

  constructor(types: readonly EntityTypeDefinition[]) {
    this.mappings = types.map((type) => new EntityMapping(type));
    for (const mapping of this.mappings) {
      this.byPathName.set(mapping.type.segment.toLowerCase(), mapping);
      this.byPathName.set(mapping.type.name.toLowerCase(), mapping);
      this.byCode.set(mapping.type.code, mapping);
    }
  }

  /** A path's `entity-type`: the segment or the readable name, case-insensitively; else a 404 listing the valid ones. */
  resolve(pathName: string): EntityMapping {
    const mapping = this.byPathName.get(pathName.toLowerCase());
    if (mapping === undefined) {
      throw EntityErrors.entityTypeUnknown(
        pathName,
        this.mappings.map((m) => m.type.segment),
      );
    }
    return mapping;
  }

  /** By internal code, byte-exact. */
  findByCode(code: string): EntityMapping | undefined {
    return this.byCode.get(code);
  }
}
