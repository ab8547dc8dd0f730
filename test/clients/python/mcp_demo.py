"""Drives Heddle's /mcp with the official Python MCP client (PyPI `mcp`), printing one JSON result.

usage: mcp_demo.py <url> <authorization header> <project> <call id> [<other project>]
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client


def parse(result):
    text = result.content[0].text
    return {"is_error": bool(result.is_error), "value": json.loads(text)}


async def main(url, authorization, project, call_id, other):
    out = {}
    async with create_mcp_http_client(headers={"Authorization": authorization}) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                out["server"] = init.server_info.name
                out["protocol"] = init.protocol_version
                tools = await session.list_tools()
                out["tools"] = sorted(tool.name for tool in tools.tools)
                out["count"] = parse(await session.call_tool("count_calls", {"project_id": project}))
                out["page"] = parse(
                    await session.call_tool("query_calls", {"project_id": project, "limit": 1, "columns": ["op_name"]})
                )
                out["call"] = parse(await session.call_tool("get_call", {"project_id": project, "call_id": call_id}))
                out["feedback"] = parse(
                    await session.call_tool(
                        "add_feedback", {"project_id": project, "call_id": call_id, "note": "from python"}
                    )
                )
                if other:
                    out["other"] = parse(await session.call_tool("count_calls", {"project_id": other}))
    print(json.dumps(out))


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], args[1], args[2], args[3], args[4] if len(args) > 4 else None))
