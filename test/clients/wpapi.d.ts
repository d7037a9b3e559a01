// wpapi ships no types; its requests are chainable builders whose results are plain JSON.
declare module 'wpapi' {
  const WPAPI: any;
  export default WPAPI;
}
