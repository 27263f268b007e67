/**
 * The line each value of a JSON text starts on, by its path ("batch.byTotal[1].above"), so
 * that a policy file's problems name the line to fix. JSON.parse keeps no positions; this
 * walks the same text once, after JSON.parse has accepted it.
 */
export function jsonLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let at = 0;
  let line = 1;
  const skip = () => {
    while (at < text.length && /\s/.test(text[at]!)) {
      if (text[at] === '\n') line++;
      at++;
    }
  };
  const string = (): string => {
    const start = at;
    at++;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (path: string): void => {
    skip();
    lines.set(path, line);
    const c = text[at];
    if (c === '{') {
      at++;
      skip();
      while (text[at] !== '}') {
        skip();
        const keyLine = line;
        const key = string();
        const child = path === '' ? key : `${path}.${key}`;
        skip();
        at++; // ':'
        value(child);
        // A field is named where its key is, even when its value starts on the next line.
        lines.set(child, keyLine);
        skip();
        if (text[at] === ',') at++;
        skip();
      }
      at++;
    } else if (c === '[') {
      at++;
      skip();
      for (let index = 0; text[at] !== ']'; index++) {
        value(`${path}[${index}]`);
        skip();
        if (text[at] === ',') at++;
        skip();
      }
      at++;
    } else if (c === '"') {
      string();
    } else {
      while (at < text.length && !/[\s,\]}]/.test(text[at]!)) at++;
    }
  };
  value('');
  return lines;
}

/** The line of a JSON.parse syntax error, from the position its message gives (Node 20 to 24 say "at position N" or "line L column C"). */
export function syntaxErrorLine(text: string, error: SyntaxError): number | undefined {
  const lineColumn = /line (\d+) column/.exec(error.message);
  if (lineColumn !== null) return Number(lineColumn[1]);
  const position = /position (\d+)/.exec(error.message);
  if (position !== null) return text.slice(0, Number(position[1])).split('\n').length;
  return undefined;
}
