/** The method a request is routed by: HEAD is a GET whose body is not sent (RFC 9110 9.3.2), which Node leaves out. */
export function routedMethod(method: string): string {
  return method === 'HEAD' ? 'GET' : method;
}
