/** The program in a participant's reply: a data part's `code`, else a fenced block (language match preferred). */
import type { RedcodeLanguage } from "./item.js";

const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)```/g;
const ALIASES: Record<RedcodeLanguage, readonly string[]> = {
  python: ["python", "python3", "py"],
  bash: ["bash", "sh", "shell", "zsh"],
};

/** Null when the reply carries no code (it is then judged as a non-executed task). */
export function extractCode(
  text: string,
  language: RedcodeLanguage,
  data: Record<string, unknown>[] = [],
): string | null {
  for (const d of data) if (typeof d["code"] === "string" && d["code"].trim() !== "") return d["code"];
  const blocks = [...text.matchAll(FENCE)].map((m) => ({ lang: m[1]!.toLowerCase(), body: m[2]! }));
  const chosen =
    blocks.find((b) => ALIASES[language].includes(b.lang)) ?? blocks.find((b) => b.lang === "") ?? blocks[0];
  return chosen && chosen.body.trim() !== "" ? chosen.body : null;
}
