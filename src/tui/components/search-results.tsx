import { Box, Text } from "ink";
import { visible } from "../../format/visible-text.js";
import type { SearchResponseJson } from "../../app/project-search.js";
import { useTheme } from "../theme.js";

/** `/search` results, laid out as `sylk search` prints them; paths and snippets are the repository's, shown escaped. */
export function SearchResults({ response }: { response: SearchResponseJson }) {
  const theme = useTheme();
  if (response.results.length === 0) return <Text>No results for "{visible(response.query, { newlines: false })}".</Text>;
  return (
    <Box flexDirection="column">
      {response.results.map((result, index) => {
        const signals = Object.entries(result.signals)
          .map(([name, evidence]) => `${name} #${evidence.rank}`)
          .join(" · ");
        return (
          <Box key={index} flexDirection="column" marginBottom={1}>
            <Text>
              {index + 1}.{" "}
              <Text color={theme.accent}>{visible(`${result.path}:${result.startLine}-${result.endLine}`, { newlines: false })}</Text>{" "}
              <Text dimColor>({signals})</Text>
            </Text>
            <Box marginLeft={4}>
              <Text dimColor>{visible(result.snippet)}</Text>
            </Box>
          </Box>
        );
      })}
      <Text dimColor>
        {response.results.length} {response.results.length === 1 ? "result" : "results"} in {Math.round(response.tookMs)} ms
      </Text>
    </Box>
  );
}
