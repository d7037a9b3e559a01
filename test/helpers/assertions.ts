import assert from 'node:assert/strict';

/** A 400 `rest_invalid_param` response whose `data.params` names `param`. */
export function assertInvalidParam(response: { status: number; body: any }, param: string): void {
  assert.equal(response.status, 400, JSON.stringify(response.body));
  assert.equal(response.body.code, 'rest_invalid_param');
  assert.ok(param in response.body.data.params, `${param} in ${JSON.stringify(response.body.data.params)}`);
}

/** For `assert.rejects`: an AppError with `status`; a 400 must be `rest_invalid_param` naming only `param`. */
export function rejectsNaming(param: string, status = 400) {
  return (error: any) => {
    assert.equal(error.status, status);
    if (status === 400) {
      assert.equal(error.code, 'rest_invalid_param');
      assert.deepEqual(Object.keys(error.data.params), [param]);
    }
    return true;
  };
}
