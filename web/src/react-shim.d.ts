// The typings this UI uses from React 18, written here because @types/react is not among the
// installed packages (docs/dependencies.md). Only what the pages call is declared; element
// attributes are left open.
declare module 'react' {
  export type ReactNode = ReactElement | string | number | boolean | null | undefined | readonly ReactNode[];
  export interface ReactElement { readonly type: unknown; readonly props: unknown; readonly key: string | null }
  export type SetState<T> = (value: T | ((previous: T) => T)) => void;
  export interface RefObject<T> { current: T }
  export function useState<T>(initial: T | (() => T)): [T, SetState<T>];
  export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
  export function useLayoutEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
  export function useMemo<T>(factory: () => T, deps: readonly unknown[]): T;
  export function useCallback<T extends (...args: never[]) => unknown>(fn: T, deps: readonly unknown[]): T;
  export function useRef<T>(initial: T): RefObject<T>;
  export function useSyncExternalStore<T>(subscribe: (onChange: () => void) => () => void, get: () => T): T;
  export const Fragment: unique symbol;
  export function StrictMode(props: { children?: ReactNode }): ReactElement;
}
declare module 'react/jsx-runtime' {
  export function jsx(type: unknown, props: unknown, key?: unknown): import('react').ReactElement;
  export function jsxs(type: unknown, props: unknown, key?: unknown): import('react').ReactElement;
  export const Fragment: unique symbol;
}
declare module 'react-dom/client' {
  export function createRoot(element: Element): { render(node: import('react').ReactNode): void };
}
declare namespace JSX {
  type Element = import('react').ReactElement;
  interface ElementChildrenAttribute { children: {} }
  interface IntrinsicAttributes { key?: string | number | null }
  interface IntrinsicElements { [name: string]: Record<string, unknown> }
}
declare module '*.css';
