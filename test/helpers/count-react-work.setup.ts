import { countReactWork } from "./react-work.js";

// Before any test file loads Ink, whose reconciler reads React's scheduler once.
countReactWork();
