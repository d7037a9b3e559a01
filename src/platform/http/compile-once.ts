import type { Ajv, ValidateFunction } from 'ajv';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify compiles a validator for every part of every route and a
 * serializer for every status of every route, HEAD routes included: about
 * 270 validators and 900 serializers when a server starts, from fewer than
 * 60 and 40 distinct schemas. Compiling each distinct schema once per server
 * (keyed by its JSON text, which is all that the compiled code depends on)
 * takes most of the start-up time away.
 */

/** Ajv plugin: a schema whose text was compiled before gets the same validator. */
export function compileOncePerSchema(ajv: Ajv): Ajv {
  const compile = ajv.compile.bind(ajv);
  const compiled = new Map<string, ValidateFunction>();
  ajv.compile = (<T>(schema: object, meta?: boolean): ValidateFunction<T> => {
    const key = `${meta === true ? 'meta:' : ''}${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = compile(schema, meta);
      compiled.set(key, validate);
    }
    return validate as ValidateFunction<T>;
  }) as Ajv['compile'];
  return ajv;
}

type SerializerFactory = SerializerSelector.SerializerFactory;
type SerializerCompiler = SerializerSelector.SerializerCompiler;

/** Fastify's serializer factory (fast-json-stringify), compiling a schema whose text it compiled before only once. */
export function serializersOncePerSchema(): SerializerFactory {
  const select = SerializerSelector();
  const compilers = new Map<string, SerializerCompiler>();
  return (externalSchemas, options) => {
    const key = JSON.stringify([externalSchemas, options]);
    let compiler = compilers.get(key);
    if (compiler === undefined) {
      const build = select(externalSchemas, options);
      const built = new Map<string, ReturnType<SerializerCompiler>>();
      compiler = (route) => {
        const text = JSON.stringify(route.schema);
        let serialize = built.get(text);
        if (serialize === undefined) {
          serialize = build(route);
          built.set(text, serialize);
        }
        return serialize;
      };
      compilers.set(key, compiler);
    }
    return compiler;
  };
}
