/**
 * The block classifier's features: they live beside the learned Layout layer that computes them
 * at read time (packages/pdf/src/LayoutFeatures.ts); training and the bench import them from here.
 */
export {
  type BlockSnapshot, bodySizeOf, capturingLayout, documentRows, FEATURES, KINDS, pageRows, type PageSnapshot, snapshot
} from "../../packages/pdf/src/LayoutFeatures.ts"
