// Types for the vendored htm + Preact bundle (for `tsc --checkJs` only; browsers load the .js):
// Preact's own types, and htm's `html` tag bound to Preact's `h`.
import type { VNode } from "preact";
export { h, render, Component, createContext } from "preact";
export {
  useState, useReducer, useEffect, useLayoutEffect, useRef, useImperativeHandle, useMemo, useCallback,
  useContext, useDebugValue, useErrorBoundary,
} from "preact/hooks";
export declare function html(strings: TemplateStringsArray, ...values: unknown[]): VNode | VNode[] | null;
