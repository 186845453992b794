/**
 * The parquet.thrift structure of a footer, as far as hyparquet and this package read it: each
 * known field's wire type, whether it must be there, and an enum's allowed values. The footer is
 * checked against it before either reads it, because hyparquet assumes a well-formed footer and
 * fails with messages about its own internals. A misfit is a `ThriftError` naming the field's path
 * (`FileMetaData.row_groups[2].columns[0].meta_data.codec`); unknown fields pass unchecked, and an
 * empty list's element type is not checked (writers put anything there).
 */
import {
  T_BINARY,
  T_BYTE,
  T_FALSE,
  T_I16,
  T_I32,
  T_I64,
  T_LIST,
  T_SET,
  T_STRUCT,
  T_TRUE,
  ThriftError,
  type TList,
  type TStruct,
} from './thrift.ts';

/** One known field of a Thrift struct: its wire type, whether it must be there, what it holds. */
interface FieldSpec {
  readonly name: string;
  /** 'int' = i8/i16/i32 (writers differ), 'bool' = either boolean wire type. */
  readonly type: 'int' | 'i64' | 'binary' | 'bool' | 'struct' | 'list';
  readonly required?: boolean;
  /** Allowed values of an enum-valued int. */
  readonly max?: number;
  /** A struct's fields, or a list's elements when they are structs. */
  readonly struct?: StructSpec;
  /** A list's element type when it is not a struct. */
  readonly elem?: 'int' | 'binary';
}
type StructSpec = { readonly name: string; readonly fields: Readonly<Record<number, FieldSpec>> };

const KEY_VALUE: StructSpec = { name: 'KeyValue', fields: { 1: { name: 'key', type: 'binary', required: true }, 2: { name: 'value', type: 'binary' } } };
const TIME_UNIT_HOLDER: StructSpec = {
  name: 'TimeType',
  fields: { 1: { name: 'isAdjustedToUTC', type: 'bool', required: true }, 2: { name: 'unit', type: 'struct', required: true, struct: { name: 'TimeUnit', fields: {} } } },
};
const LOGICAL_TYPE: StructSpec = {
  name: 'LogicalType',
  fields: {
    5: { name: 'DECIMAL', type: 'struct', struct: { name: 'DecimalType', fields: { 1: { name: 'scale', type: 'int', required: true }, 2: { name: 'precision', type: 'int', required: true } } } },
    7: { name: 'TIME', type: 'struct', struct: TIME_UNIT_HOLDER },
    8: { name: 'TIMESTAMP', type: 'struct', struct: TIME_UNIT_HOLDER },
    10: { name: 'INTEGER', type: 'struct', struct: { name: 'IntType', fields: { 1: { name: 'bitWidth', type: 'int', required: true }, 2: { name: 'isSigned', type: 'bool', required: true } } } },
  },
};
const SCHEMA_ELEMENT: StructSpec = {
  name: 'SchemaElement',
  fields: {
    1: { name: 'type', type: 'int', max: 7 },
    2: { name: 'type_length', type: 'int' },
    3: { name: 'repetition_type', type: 'int', max: 2 },
    4: { name: 'name', type: 'binary', required: true },
    5: { name: 'num_children', type: 'int' },
    6: { name: 'converted_type', type: 'int', max: 21 },
    7: { name: 'scale', type: 'int' },
    8: { name: 'precision', type: 'int' },
    9: { name: 'field_id', type: 'int' },
    10: { name: 'logicalType', type: 'struct', struct: LOGICAL_TYPE },
  },
};
const STATISTICS: StructSpec = {
  name: 'Statistics',
  fields: {
    1: { name: 'max', type: 'binary' },
    2: { name: 'min', type: 'binary' },
    3: { name: 'null_count', type: 'i64' },
    4: { name: 'distinct_count', type: 'i64' },
    5: { name: 'max_value', type: 'binary' },
    6: { name: 'min_value', type: 'binary' },
  },
};
const COLUMN_META_DATA: StructSpec = {
  name: 'ColumnMetaData',
  fields: {
    1: { name: 'type', type: 'int', required: true, max: 7 },
    2: { name: 'encodings', type: 'list', required: true, elem: 'int' },
    3: { name: 'path_in_schema', type: 'list', required: true, elem: 'binary' },
    4: { name: 'codec', type: 'int', required: true, max: 7 },
    5: { name: 'num_values', type: 'i64', required: true },
    6: { name: 'total_uncompressed_size', type: 'i64', required: true },
    7: { name: 'total_compressed_size', type: 'i64', required: true },
    8: { name: 'key_value_metadata', type: 'list', struct: KEY_VALUE },
    9: { name: 'data_page_offset', type: 'i64', required: true },
    10: { name: 'index_page_offset', type: 'i64' },
    11: { name: 'dictionary_page_offset', type: 'i64' },
    12: { name: 'statistics', type: 'struct', struct: STATISTICS },
    13: {
      name: 'encoding_stats',
      type: 'list',
      struct: { name: 'PageEncodingStats', fields: { 1: { name: 'page_type', type: 'int', required: true }, 2: { name: 'encoding', type: 'int', required: true }, 3: { name: 'count', type: 'int', required: true } } },
    },
    14: { name: 'bloom_filter_offset', type: 'i64' },
    15: { name: 'bloom_filter_length', type: 'int' },
  },
};
const COLUMN_CHUNK: StructSpec = {
  name: 'ColumnChunk',
  fields: {
    1: { name: 'file_path', type: 'binary' },
    2: { name: 'file_offset', type: 'i64' },
    3: { name: 'meta_data', type: 'struct', struct: COLUMN_META_DATA },
    4: { name: 'offset_index_offset', type: 'i64' },
    5: { name: 'offset_index_length', type: 'int' },
    6: { name: 'column_index_offset', type: 'i64' },
    7: { name: 'column_index_length', type: 'int' },
  },
};
const ROW_GROUP: StructSpec = {
  name: 'RowGroup',
  fields: {
    1: { name: 'columns', type: 'list', required: true, struct: COLUMN_CHUNK },
    2: { name: 'total_byte_size', type: 'i64', required: true },
    3: { name: 'num_rows', type: 'i64', required: true },
    4: {
      name: 'sorting_columns',
      type: 'list',
      struct: { name: 'SortingColumn', fields: { 1: { name: 'column_idx', type: 'int', required: true }, 2: { name: 'descending', type: 'bool', required: true }, 3: { name: 'nulls_first', type: 'bool', required: true } } },
    },
    5: { name: 'file_offset', type: 'i64' },
    6: { name: 'total_compressed_size', type: 'i64' },
    7: { name: 'ordinal', type: 'int' },
  },
};
export const FILE_META_DATA: StructSpec = {
  name: 'FileMetaData',
  fields: {
    1: { name: 'version', type: 'int', required: true },
    2: { name: 'schema', type: 'list', required: true, struct: SCHEMA_ELEMENT },
    3: { name: 'num_rows', type: 'i64', required: true },
    4: { name: 'row_groups', type: 'list', required: true, struct: ROW_GROUP },
    5: { name: 'key_value_metadata', type: 'list', struct: KEY_VALUE },
    6: { name: 'created_by', type: 'binary' },
    7: { name: 'column_orders', type: 'list', struct: { name: 'ColumnOrder', fields: {} } },
  },
};

function wireMatches(spec: FieldSpec['type'] | 'int' | 'binary', wire: number): boolean {
  switch (spec) {
    case 'int':
      return wire === T_BYTE || wire === T_I16 || wire === T_I32;
    case 'i64':
      return wire === T_I64 || wire === T_I32 || wire === T_I16;
    case 'binary':
      return wire === T_BINARY;
    case 'bool':
      return wire === T_TRUE || wire === T_FALSE;
    case 'struct':
      return wire === T_STRUCT;
    case 'list':
      return wire === T_LIST || wire === T_SET;
  }
}

const WIRE_NAMES = ['stop', 'bool', 'bool', 'byte', 'i16', 'i32', 'i64', 'double', 'binary', 'list', 'set', 'map', 'struct', 'uuid'];

/** Throws a ThriftError naming the path of the first field of `s` that does not fit `spec`. */
export function checkStruct(s: TStruct, spec: StructSpec, path: string): void {
  for (const [id, f] of Object.entries(spec.fields)) {
    const field = s.find((x) => x.id === Number(id));
    const at = `${path}.${f.name}`;
    if (!field) {
      if (f.required) throw new ThriftError(`footer field ${at} is missing`);
      continue;
    }
    if (!wireMatches(f.type, field.type)) {
      throw new ThriftError(`footer field ${at} is a Thrift ${WIRE_NAMES[field.type] ?? field.type}, expected ${f.type === 'int' ? 'an integer' : f.type === 'i64' ? 'an i64' : `a ${f.type}`}`);
    }
    const v = field.value;
    if (f.max !== undefined && typeof v === 'number' && (v < 0 || v > f.max)) throw new ThriftError(`footer field ${at} has the unknown value ${v}`);
    if (f.type === 'struct' && f.struct) checkStruct(v as TStruct, f.struct, at);
    if (f.type === 'list') {
      const l = v as TList;
      if (f.struct) {
        if (l.elemType !== T_STRUCT) throw new ThriftError(`footer field ${at} holds ${WIRE_NAMES[l.elemType] ?? l.elemType} values, expected ${f.struct.name} structs`);
        (l.items as TStruct[]).forEach((item, i) => checkStruct(item, f.struct!, `${at}[${i}]`));
      } else if (f.elem && l.items.length > 0 && !wireMatches(f.elem, l.elemType)) {
        throw new ThriftError(`footer field ${at} holds ${WIRE_NAMES[l.elemType] ?? l.elemType} values, expected ${f.elem === 'int' ? 'integers' : 'strings'}`);
      }
    }
  }
}
