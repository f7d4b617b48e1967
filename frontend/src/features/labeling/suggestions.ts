/**
 * What the dataset labelers show of smart labeling: a sample's pending suggestion (drawn apart from
 * human labels) and accepting it. Kept apart from the feature's index so the labelers do not load
 * the Smart labeling tab (which itself reads the datasets feature).
 */
export { suggestionOf, type SampleSuggestion, type SuggestedBox } from './api/smart';
export { AcceptSuggestionButton, SuggestionChip } from './components/SuggestionChip';
export { useAcceptSuggestions } from './hooks/useSmartLabeling';
