import { AppError } from '../../platform/errors.ts';

/** 404 of the pages: what does not exist and what an anonymous reader may not see look alike. */
export const pageNotFound = () => new AppError(404, 'page-not-found', 'Page not found');

/** 400 of a view's argument that names no day or month. */
export const badPageArgument = (name: string) =>
  new AppError(400, 'rest_invalid_param', `Invalid parameter(s): ${name}`, { params: { [name]: 'Invalid parameter.' } });
